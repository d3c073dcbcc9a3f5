#!/bin/sh
# env_on_rank.sh RANK VAR=VALUE command...: runs the command with VAR=VALUE in the environment of MPI
# rank RANK only (as one part of an MPMD launch, or an mpirun -x on some ranks, would give it).
rank=$1
setting=$2
shift 2
me=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-}}}
[ "$me" = "$rank" ] && export "$setting"
exec "$@"
