/**
 * The {@code weft} command: {@code Main} dispatches to {@code info}, {@code perftest}, {@code bench},
 * {@code run} and {@code train} (the JVM AOT cache's training run); {@code ParentWatch} ends a helper process
 * whose parent died.
 */
package weft.tools;
