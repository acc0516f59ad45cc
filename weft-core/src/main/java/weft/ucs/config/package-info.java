/**
 * Configuration: every setting is a {@link weft.ucs.config.ConfigVar} registered once with its type, default
 * and help ({@link weft.ucs.config.ConfigRegistry}), read from {@code WEFT_*} environment variables or
 * {@code weft.*} properties into an immutable {@link weft.ucs.config.Config}; unknown {@code WEFT_*} names are
 * reported once with the nearest known ones ({@link weft.ucs.config.UnknownVariables}).
 */
package weft.ucs.config;
