/**
 * {@code weft run}, the launcher: options ({@code RunCommand}), host lists and Slurm allocations, CPU binding,
 * the job ({@code JobLauncher}: key-value service, PEs, output, exit codes, cleanup) and launch agents; a
 * single-file program is compiled once ({@code SourceProgram}).
 */
package weft.tools.run;
