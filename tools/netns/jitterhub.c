/* jitterhub: N-port user-space Ethernet switch with netem-like impairment (this kernel has
 * no sch_netem).
 *
 * The team's switch from ../shared/netem, extended here with a path per port: an
 * interface given as IF=DELAY_US,JITTER_US,LOSS_PCT,SPIKE_PCT,SPIKE_US impairs the frames
 * sent *to* IF with its own law (the global options for the others), so a rig can give one
 * host a slow uplink, or a Wi-Fi node its own jitter. tools/netns/rig.sh builds and runs it.
 *
 * Reads every frame on each port (AF_PACKET, ETH_P_ALL) and forwards it like a learning
 * switch: unicast to a learned MAC goes to that port only; broadcast, multicast (mDNS!) and
 * unknown unicast are flooded to every other port.  EACH COPY (frame x output port) is
 * delayed independently by  max(0, N(delay, jitter))  [+ spike with probability spike_pct]
 * and dropped with probability loss_pct, so every one-way path A->B sees the same law as
 * `netem delay D J distribution normal loss L%` on one link.  Frames may be reordered
 * (like netem with jitter) unless -o is given: then each output port is FIFO (a frame is
 * never sent before one queued earlier for the same port), which is closer to Wi-Fi.
 *
 * usage: jitterhub [-d DELAY_US] [-j JITTER_US] [-l LOSS_PCT] [-p SPIKE_PCT] [-s SPIKE_US]
 *                  [-r SEED] [-o] [-R] IF1 IF2 [IF3 ... IF16]
 *   defaults: -d 1000 -j 500 -l 0 -p 0 -s 0 -r 1
 *   -R: no SCHED_FIFO and no spin-wait (much less CPU under load, ~0.1 ms less precise)
 * SIGUSR1 prints per-port counters to stderr; SIGTERM/SIGINT print them and exit 0.
 *
 * Notes
 * - PACKET_VNET_HDR carries checksum-offload and GSO state across, so TSO/GSO super-frames
 *   (up to 64 KiB on veth) pass through intact; no ethtool needed.
 * - Delays count from the kernel receive timestamp (SO_TIMESTAMPNS, realtime), converted to
 *   CLOCK_MONOTONIC at once, so a test that steps the wall clock does not disturb the queue.
 * - Unless -R: SCHED_FIFO, and the last SPIN_NS before a due time are spun, so the hub adds
 *   only microseconds of its own (check "late" in the counters).  It burns CPU under load.
 * - A port whose link goes down (a pulled cable) just stops receiving; sends to it count as
 *   txerr; it resumes by itself when the link comes back up.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <math.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define MAXPORTS 16
#define VNET sizeof(struct virtio_net_hdr)
#define MAXFRAME (65536 + 256)        /* GSO super-frame + vnet header */
#define POOL 65536                    /* queued copies, at most */
#define MAXBYTES (256LL << 20)        /* queued bytes, at most */
#define HBINS 20001                   /* lateness histogram, 1 us bins, last = overflow */
#define SPIN_NS 200000                /* wake this early, then spin to the due time */
#define MACS 1024
#define MAC_AGE_NS (300LL * 1000000000LL)

typedef struct { int64_t due; int out, len; uint8_t *buf; } pkt_t;
/* The law of the frames sent to one port (all in ns, probabilities in 0..1). */
typedef struct { double delay, jitter, loss, spike_p, spike; } path_t;
static pkt_t pool[POOL];
static int freelist[POOL], nfree;
static int heap[POOL], nheap;
static long long qbytes;

static volatile sig_atomic_t stop, dump;
static void on_sig(int s) { if (s == SIGUSR1) dump = 1; else stop = 1; }

static int64_t clk(clockid_t c) {
  struct timespec ts; clock_gettime(c, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
static int64_t mono(void) { return clk(CLOCK_MONOTONIC); }

static uint64_t rng;
static uint64_t rnd64(void) { /* splitmix64 */
  uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static double unif(void) { return ((rnd64() >> 11) + 0.5) * (1.0 / 9007199254740992.0); }
static double gauss(void) { return sqrt(-2.0 * log(unif())) * cos(2.0 * M_PI * unif()); }

/* min-heap on due (not stable: -o makes dues strictly increasing per port) */
static void hpush(int i) {
  int k = nheap++;
  while (k > 0) { int p = (k - 1) / 2; if (pool[heap[p]].due <= pool[i].due) break; heap[k] = heap[p]; k = p; }
  heap[k] = i;
}
static int hpop(void) {
  int top = heap[0], last = heap[--nheap], k = 0;
  for (;;) {
    int c = 2 * k + 1; if (c >= nheap) break;
    if (c + 1 < nheap && pool[heap[c + 1]].due < pool[heap[c]].due) c++;
    if (pool[last].due <= pool[heap[c]].due) break;
    heap[k] = heap[c]; k = c;
  }
  if (nheap) heap[k] = last;
  return top;
}

struct mac { uint8_t a[6]; int port; int64_t seen; };
static struct mac macs[MACS];
static int nmacs;
static void learn(const uint8_t *a, int port, int64_t t) {
  if (a[0] & 1) return; /* never learn group addresses */
  int old = -1;
  for (int i = 0; i < nmacs; i++) {
    if (!memcmp(macs[i].a, a, 6)) { macs[i].port = port; macs[i].seen = t; return; }
    if (old < 0 || macs[i].seen < macs[old].seen) old = i;
  }
  int i = nmacs < MACS ? nmacs++ : old;
  memcpy(macs[i].a, a, 6); macs[i].port = port; macs[i].seen = t;
}
static int lookup(const uint8_t *a, int64_t t) {
  if (a[0] & 1) return -1;
  for (int i = 0; i < nmacs; i++)
    if (!memcmp(macs[i].a, a, 6)) return t - macs[i].seen < MAC_AGE_NS ? macs[i].port : -1;
  return -1;
}

static int open_if(const char *name) {
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
  if (fd < 0) { perror("socket(AF_PACKET)"); exit(1); }
  int one = 1, big = 4 << 20;
  if (setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) < 0) { perror("PACKET_VNET_HDR"); exit(1); }
  if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0) { perror("PACKET_IGNORE_OUTGOING"); exit(1); }
  if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) < 0) { perror("SO_TIMESTAMPNS"); exit(1); }
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big) < 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big) < 0) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  struct sockaddr_ll sll = {0};
  sll.sll_family = AF_PACKET; sll.sll_protocol = htons(ETH_P_ALL);
  sll.sll_ifindex = if_nametoindex(name);
  if (!sll.sll_ifindex) { fprintf(stderr, "jitterhub: no interface %s\n", name); exit(1); }
  if (bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0) { perror("bind"); exit(1); }
  return fd;
}

/* rx counters belong to the input port, the rest to the output port */
struct portstat { long rx, trunc, flood, filtered, drop, spike, tx, txerr, full, late1ms; long hist[HBINS];
                  int64_t late_sum, late_max; };
static struct portstat st[MAXPORTS];
static char *ifname[MAXPORTS];
static path_t path[MAXPORTS];
static int nports;

static long pct(const long *h, long n, double q) {
  long want = (long)(q * n), acc = 0;
  for (int i = 0; i < HBINS; i++) { acc += h[i]; if (acc > want) return i; }
  return HBINS - 1;
}
static void print_stats(void) {
  for (int p = 0; p < nports; p++) {
    struct portstat *s = &st[p];
    long n = s->tx + s->txerr;
    fprintf(stderr, "jitterhub %s: in rx=%ld trunc=%ld flooded=%ld filtered=%ld | out dropped=%ld spiked=%ld "
            "tx=%ld txerr=%ld poolfull=%ld late_us mean=%.1f p50=%ld p99=%ld max=%.1f n>1ms=%ld\n",
            ifname[p], s->rx, s->trunc, s->flood, s->filtered, s->drop, s->spike, s->tx, s->txerr, s->full,
            n ? s->late_sum / 1e3 / n : 0.0, n ? pct(s->hist, n, 0.5) : 0, n ? pct(s->hist, n, 0.99) : 0,
            s->late_max / 1e3, s->late1ms);
  }
}

static void usage(const char *a0) {
  fprintf(stderr, "usage: %s [-d DELAY_US] [-j JITTER_US] [-l LOSS_PCT] [-p SPIKE_PCT] [-s SPIKE_US] "
          "[-r SEED] [-o] [-R] IF1[=D,J,L,P,S] IF2[=...] [... IF%d]\n", a0, MAXPORTS);
  exit(2);
}

int main(int argc, char **argv) {
  double delay = 1000e3, jitter = 500e3, loss = 0, spike_p = 0, spike = 0;
  int fifo = 0, rt = 1, c;
  rng = 1;
  while ((c = getopt(argc, argv, "d:j:l:p:s:r:oR")) != -1) {
    switch (c) {
      case 'd': delay = atof(optarg) * 1e3; break;
      case 'j': jitter = atof(optarg) * 1e3; break;
      case 'l': loss = atof(optarg) / 100.0; break;
      case 'p': spike_p = atof(optarg) / 100.0; break;
      case 's': spike = atof(optarg) * 1e3; break;
      case 'r': rng = strtoull(optarg, NULL, 0); break;
      case 'o': fifo = 1; break;
      case 'R': rt = 0; break;
      default: usage(argv[0]);
    }
  }
  nports = argc - optind;
  if (nports < 2 || nports > MAXPORTS) usage(argv[0]);
  int fd[MAXPORTS];
  struct pollfd pfd[MAXPORTS];
  for (int p = 0; p < nports; p++) {
    ifname[p] = argv[optind + p];
    path[p] = (path_t){ delay, jitter, loss, spike_p, spike };
    char *law = strchr(ifname[p], '=');
    if (law) {
      double v[5];
      *law++ = 0;
      if (sscanf(law, "%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5) {
        fprintf(stderr, "jitterhub: %s: the path is DELAY_US,JITTER_US,LOSS_PCT,SPIKE_PCT,SPIKE_US\n", ifname[p]);
        exit(2);
      }
      path[p] = (path_t){ v[0] * 1e3, v[1] * 1e3, v[2] / 100.0, v[3] / 100.0, v[4] * 1e3 };
    }
    fprintf(stderr, "jitterhub to %s: delay=%.0fus jitter=%.0fus loss=%.2f%% spike=%.2f%%x%.0fus\n", ifname[p],
            path[p].delay / 1e3, path[p].jitter / 1e3, path[p].loss * 100, path[p].spike_p * 100, path[p].spike / 1e3);
    fd[p] = open_if(ifname[p]);
    pfd[p] = (struct pollfd){ fd[p], POLLIN, 0 };
  }

  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* wake on time, not up to 50 us late */
  if (rt) {
    struct sched_param sp = { .sched_priority = 50 };
    if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) perror("jitterhub: SCHED_FIFO (continuing)");
  }
  struct sigaction sa = {0}; sa.sa_handler = on_sig;
  sigaction(SIGTERM, &sa, NULL); sigaction(SIGINT, &sa, NULL); sigaction(SIGUSR1, &sa, NULL);
  sigset_t blk, orig; sigemptyset(&blk);
  sigaddset(&blk, SIGTERM); sigaddset(&blk, SIGINT); sigaddset(&blk, SIGUSR1);
  sigprocmask(SIG_BLOCK, &blk, &orig);

  static uint8_t scratch[MAXFRAME];
  int64_t last_due[MAXPORTS] = {0};
  int64_t spin = rt ? SPIN_NS : 0;
  for (int i = 0; i < POOL; i++) freelist[i] = POOL - 1 - i;
  nfree = POOL;
  fprintf(stderr, "jitterhub %d ports delay=%.0fus jitter=%.0fus loss=%.2f%% spike=%.2f%%x%.0fus %s%s\n",
          nports, delay / 1e3, jitter / 1e3, loss * 100, spike_p * 100, spike / 1e3,
          fifo ? "fifo" : "reorder", rt ? "" : " no-rt");

  while (!stop) {
    if (dump) { dump = 0; print_stats(); }
    struct timespec to, *top = NULL;
    if (nheap) {
      int64_t d = pool[heap[0]].due - mono() - spin;
      if (d < 0) d = 0;
      to.tv_sec = d / 1000000000LL; to.tv_nsec = d % 1000000000LL; top = &to;
    }
    int r = ppoll(pfd, nports, top, &orig);
    if (r < 0 && errno != EINTR) { perror("ppoll"); break; }
    for (int in = 0; in < nports && r > 0; in++) {
      if (pfd[in].revents & (POLLERR | POLLHUP)) { /* link went down: clear ENETDOWN, the kernel re-hooks on up */
        int e; socklen_t l = sizeof e; getsockopt(fd[in], SOL_SOCKET, SO_ERROR, &e, &l);
      }
      if (!(pfd[in].revents & POLLIN)) continue;
      for (;;) { /* drain */
        char cbuf[256];
        struct iovec iov = { scratch, sizeof scratch };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
        ssize_t n = recvmsg(fd[in], &mh, 0);
        if (n < 0) { if (errno == EAGAIN || errno == EWOULDBLOCK) break; if (errno == EINTR) continue; break; }
        int64_t t = mono();
        for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
          if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts; memcpy(&ts, CMSG_DATA(cm), sizeof ts);
            int64_t age = clk(CLOCK_REALTIME) - ((int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
            if (age >= 0 && age < 1000000000LL) t -= age;
          }
        struct portstat *si = &st[in];
        si->rx++;
        if ((mh.msg_flags & MSG_TRUNC) || n < (ssize_t)(VNET + 14)) { si->trunc++; continue; }
        const uint8_t *eth = scratch + VNET;
        learn(eth + 6, in, t);
        int dst = lookup(eth, t);
        if (dst == in) { si->filtered++; continue; }
        if (dst < 0) si->flood++;
        for (int out = 0; out < nports; out++) {
          if (out == in || (dst >= 0 && out != dst)) continue;
          struct portstat *so = &st[out];
          const path_t *pp = &path[out];
          if (pp->loss > 0 && unif() < pp->loss) { so->drop++; continue; }
          double dl = pp->delay + (pp->jitter > 0 ? pp->jitter * gauss() : 0);
          if (pp->spike_p > 0 && unif() < pp->spike_p) { dl += pp->spike; so->spike++; }
          if (dl < 0) dl = 0;
          int64_t due = t + (int64_t)dl;
          if (fifo && due <= last_due[out]) due = last_due[out] + 1; /* strictly later: the heap is not stable */
          uint8_t *b;
          if (!nfree || qbytes + n > MAXBYTES || !(b = malloc(n))) { so->full++; continue; }
          memcpy(b, scratch, n);
          int i = freelist[--nfree];
          pool[i] = (pkt_t){ due, out, (int)n, b };
          qbytes += n;
          last_due[out] = due;
          hpush(i);
        }
      }
    }
    int64_t t = mono();
    if (spin && nheap && pool[heap[0]].due > t && pool[heap[0]].due - t <= spin) {
      while ((t = mono()) < pool[heap[0]].due) { /* spin: <= SPIN_NS per wake-up */ }
    }
    while (nheap && pool[heap[0]].due <= t) {
      int i = hpop();
      int o = pool[i].out;
      struct portstat *s = &st[o];
      int64_t late = mono() - pool[i].due; /* before send(): send() also runs the peer's rx softirq */
      if (send(fd[o], pool[i].buf, pool[i].len, 0) < 0) s->txerr++; else s->tx++;
      s->late_sum += late; if (late > s->late_max) s->late_max = late;
      if (late > 1000000 && s->late1ms++ < 10)
        fprintf(stderr, "jitterhub: frame to %s sent %.1f us late\n", ifname[o], late / 1e3);
      long b = late / 1000; if (b >= HBINS) b = HBINS - 1; if (b < 0) b = 0;
      s->hist[b]++;
      qbytes -= pool[i].len;
      free(pool[i].buf);
      freelist[nfree++] = i;
      t = mono();
    }
  }
  print_stats();
  return 0;
}
