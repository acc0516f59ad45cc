package weft.uct;

import weft.ucs.config.Config;

/**
 * What an interface is opened with.
 *
 * @param config       configuration view (transport tunables, job secret)
 * @param errorHandler told when an endpoint fails; may be null (failures are then only returned
 *                     as statuses)
 */
public record InterfaceParams(Config config, ErrorHandler errorHandler) {
    /** Global configuration, no error handler. */
    public static InterfaceParams defaults() {
        return new InterfaceParams(Config.global(), null);
    }

    public InterfaceParams withErrorHandler(final ErrorHandler handler) {
        return new InterfaceParams(config, handler);
    }

    public InterfaceParams withConfig(final Config c) {
        return new InterfaceParams(c, errorHandler);
    }
}
