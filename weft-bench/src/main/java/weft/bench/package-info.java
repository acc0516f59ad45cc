/**
 * JMH microbenchmarks of single layers (memory copy, registration cache, transport and ucp operations), run
 * with {@code ./weft jmh [REGEX]}; the side-by-side comparisons with native anchors are the scripts in
 * {@code bench/}.
 */
package weft.bench;
