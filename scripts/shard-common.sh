# shard-common.sh -- what sweep-parallel.sh and sweep-slurm.sh both check.
# Sourced, not run: the caller defines die() and sets shards, threads,
# scale and experiment first.

is_count() { case "$1" in ''|*[!0-9]*) return 1 ;; *) [ "$1" -ge 1 ] ;; esac; }

check_shard_settings() {
    is_count "$shards" || die "--shards: '$shards' is not a whole number >= 1"
    is_count "$threads" || die "--threads: '$threads' is not a whole number >= 1"
    case "$scale" in ''|quick|full) ;; *) die "--scale: '$scale' is not quick or full" ;; esac
    [ -f "$experiment" ] || die "experiment file '$experiment' does not exist"
}
