/**
 * {@code weft bench}: a plan of perftest points run side by side with {@code ucx_perftest} (alternating pairs,
 * pinned), and the table, CSV and plots of the results.
 */
package weft.tools.bench;
