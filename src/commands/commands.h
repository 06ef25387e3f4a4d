/* commands.h -- the subcommands main() hands over to. Each takes its own
 * argv (argv[0] is the command's name) and returns the exit status:
 * 0 success, 1 a failure while running, 2 bad input, 130 interrupted. */
#ifndef BLOOMLAB_COMMANDS_H
#define BLOOMLAB_COMMANDS_H

int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_theory(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_uniformity(int argc, char **argv);
int cmd_calc(int argc, char **argv);
int cmd_memory(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif
