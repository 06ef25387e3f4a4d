/* version.c -- the git revision, the one thing that changes with every commit. */
#include "base/version.h"

#ifndef BLOOMLAB_GIT
#define BLOOMLAB_GIT "unknown"
#endif

const char bloomlab_git_rev[] = BLOOMLAB_GIT;
