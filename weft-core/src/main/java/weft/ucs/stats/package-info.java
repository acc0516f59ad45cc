/**
 * Counters instead of logs: each interface and worker keeps a {@link weft.ucs.stats.Counters} array of
 * {@link weft.ucs.stats.Counter} values (plain longs, written by their owner thread), which {@code weft info}
 * and the tests read.
 */
package weft.ucs.stats;
