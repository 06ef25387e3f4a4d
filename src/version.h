#ifndef BLOOMLAB_VERSION_H
#define BLOOMLAB_VERSION_H
#define BLOOMLAB_VERSION "0.1.0"
#ifndef BLOOMLAB_GIT
#define BLOOMLAB_GIT "unknown"
#endif
#endif
