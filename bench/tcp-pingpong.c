#define _GNU_SOURCE
#include <errno.h>
// ping-pong of 16-byte messages (8 B header + 8 B payload) over loopback:
// mode 1 = one socket per peer pair (replies on the same socket), mode 2 = one socket per direction.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <arpa/inet.h>
#include <sys/wait.h>
#include <sched.h>
static int lsn(int port){int s=socket(AF_INET,SOCK_STREAM,0),o=1;setsockopt(s,SOL_SOCKET,SO_REUSEADDR,&o,4);
 struct sockaddr_in a={.sin_family=AF_INET,.sin_port=htons(port),.sin_addr.s_addr=htonl(0x7f000001)};
 if(bind(s,(void*)&a,sizeof a)){perror("bind");exit(1);} listen(s,4);return s;}
static int con(int port){int s=socket(AF_INET,SOCK_STREAM,0),o=1;
 struct sockaddr_in a={.sin_family=AF_INET,.sin_port=htons(port),.sin_addr.s_addr=htonl(0x7f000001)};
 for(int i=0;i<200&&connect(s,(void*)&a,sizeof a);i++){close(s);s=socket(AF_INET,SOCK_STREAM,0);usleep(10000);}
 setsockopt(s,IPPROTO_TCP,TCP_NODELAY,&o,4);return s;}
static int acc(int l){int o=1,s=accept(l,0,0);setsockopt(s,IPPROTO_TCP,TCP_NODELAY,&o,4);return s;}
static void rd(int s,char*b){int n=0;while(n<16){int r=recv(s,b+n,16-n,MSG_DONTWAIT);if(r<0&&errno==EAGAIN)continue;if(r<=0){perror("recv");exit(1);}n+=r;}}
static unsigned segs(int s){struct tcp_info t;socklen_t l=sizeof t;getsockopt(s,IPPROTO_TCP,TCP_INFO,&t,&l);return t.tcpi_segs_out;}
static void pin(int c){cpu_set_t m;CPU_ZERO(&m);CPU_SET(c,&m);sched_setaffinity(0,sizeof m,&m);}
int main(int argc,char**argv){int mode=atoi(argv[1]),n=atoi(argv[2]),p=atoi(argv[3]);char b[16]={0};
 int l1=lsn(p),l2=mode==2?lsn(p+1):-1;
 pid_t c=fork();
 if(c==0){pin(0);int in,out; if(mode==1){in=out=acc(l1);}else{in=acc(l1);out=con(p+1);}
   for(int i=0;i<n;i++){rd(in,b);send(out,b,16,0);} usleep(300000); printf("  server segs out: %u%s\n", segs(in)+(in!=out?segs(out):0), ""); fflush(stdout); _exit(0);}
 pin(1);int in,out; if(mode==1){in=out=con(p);}else{out=con(p);in=acc(l2);}
 struct timespec t0,t1;
 for(int i=0;i<n;i++){ if(i==n/5)clock_gettime(CLOCK_MONOTONIC,&t0); send(out,b,16,0);rd(in,b);}
 clock_gettime(CLOCK_MONOTONIC,&t1);
 double us=((t1.tv_sec-t0.tv_sec)*1e9+(t1.tv_nsec-t0.tv_nsec))/1e3/(n-n/5);
 usleep(300000); unsigned cs=segs(in)+(in!=out?segs(out):0); waitpid(c,0,0);printf("  client segs out: %u\n",cs);printf("mode %d: rtt %.2f us, one-way %.2f us\n",mode,us,us/2);return 0;}
