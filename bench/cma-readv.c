/* The kernel's cost of a cma get: process_vm_readv of SIZE bytes from a forked child (pinned to core 0) into
 * this process (core 1), ITERS times, beside a memcpy of the same size: the floor of any get that goes over
 * cma, whatever the library around it.
 *   gcc -O2 -o /tmp/cma-readv bench/cma-readv.c && /tmp/cma-readv 65536 20000 [SEG]
 * SEG cuts each get into calls of SEG bytes (default: one call). */
#define _GNU_SOURCE
#include <sys/uio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sched.h>
#include <sys/wait.h>
#include <sys/mman.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e9+t.tv_nsec;}
int main(int argc,char**argv){
  size_t size=atol(argv[1]); int iters=atoi(argv[2]); size_t seg=argc>3?atol(argv[3]):size;
  char*src=aligned_alloc(4096,size); memset(src,1,size);
  char*dst=aligned_alloc(4096,size); memset(dst,0,size);
  pid_t pid=fork();
  if(pid==0){cpu_set_t s;CPU_ZERO(&s);CPU_SET(0,&s);sched_setaffinity(0,sizeof s,&s);for(;;)pause();}
  cpu_set_t s;CPU_ZERO(&s);CPU_SET(1,&s);sched_setaffinity(0,sizeof s,&s);
  for(int w=0;w<2;w++){
  double t0=now();
  for(int i=0;i<iters;i++){
    for(size_t o=0;o<size;o+=seg){ size_t n=size-o<seg?size-o:seg;
    struct iovec l={dst+o,n}, r={src+o,n};
    if(process_vm_readv(pid,&l,1,&r,1,0)!=(ssize_t)n){perror("rv");return 1;}}
  }
  double t=now()-t0;
  if(w) printf("cma size=%zu seg=%zu: %.3f us/op %.1f MB/s\n",size,seg,t/iters/1e3,size*iters/(t/1e9)/1e6);}
  double t0=now();
  for(int i=0;i<iters;i++){ memcpy(dst,src,size); __asm__ volatile(""::"r"(dst):"memory");}
  double t=now()-t0;
  printf("memcpy size=%zu: %.3f us/op %.1f MB/s\n",size,t/iters/1e3,size*iters/(t/1e9)/1e6);
  kill(pid,9);wait(0);return 0;}
