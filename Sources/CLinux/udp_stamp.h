#ifndef DUALCAM_CLINUX_UDP_STAMP_H
#define DUALCAM_CLINUX_UDP_STAMP_H
// UDP with kernel receive timestamps, for the clock lane (DualCamNet/ClockLane).
// The clock exchange needs the instant a datagram reached the host, not the instant a
// busy event loop got round to it: SO_TIMESTAMPNS has the kernel stamp every datagram
// as the network stack receives it, read back from recvmsg's control messages, which
// Swift cannot walk (CMSG_* are macros).
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

// A datagram's sender or destination, held by value on the Swift side.
typedef struct {
    struct sockaddr_storage address;
    socklen_t length;
} dc_udp_peer;

// Fills `peer` from a numeric IPv4 or IPv6 address and a port; `scope` is the interface
// index an IPv6 link-local address (fe80::/10) needs, 0 for any other. Returns 0, or -1
// when `ip` is not a numeric address.
static inline int dc_udp_peer_make(dc_udp_peer *peer, const char *ip, int port, uint32_t scope) {
    memset(peer, 0, sizeof *peer);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&peer->address;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&peer->address;
    if (inet_pton(AF_INET, ip, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        peer->length = sizeof *v4;
        return 0;
    }
    if (inet_pton(AF_INET6, ip, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        v6->sin6_scope_id = scope;
        peer->length = sizeof *v6;
        return 0;
    }
    return -1;
}

// The peer's address in numeric form, into `text` (at least INET6_ADDRSTRLEN bytes).
// Returns 0, or -1 for an address of another family.
static inline int dc_udp_peer_ip(const dc_udp_peer *peer, char *text, socklen_t size) {
    const struct sockaddr *sa = (const struct sockaddr *)&peer->address;
    const void *raw = sa->sa_family == AF_INET ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                    : sa->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr : NULL;
    if (raw == NULL || inet_ntop(sa->sa_family, raw, text, size) == NULL) return -1;
    return 0;
}

// Marks the socket's datagrams urgent: DSCP EF (46) in the IP header, which Wi-Fi access
// points and managed switches queue ahead of bulk traffic, and socket priority 6
// (TC_PRIO_INTERACTIVE), which puts them in the first band of the host's own qdisc and,
// on a Wi-Fi interface, in the voice access category (AC_VO) instead of best effort. A
// clock datagram that waits behind a burst of video is a slow exchange the fit must
// discard. Best effort: a network that ignores or rewrites the mark loses nothing.
static inline void dc_udp_mark_urgent(int fd, int family) {
    int tos = 46 << 2;
    if (family == AF_INET6) (void)setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof tos);
    else (void)setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos);
    int priority = 6;  // after IP_TOS, which would otherwise set its own
    (void)setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &priority, sizeof priority);
}

// The socket's traffic class and priority as the kernel holds them, or -1 each.
static inline void dc_udp_marks(int fd, int family, int *tos, int *priority) {
    socklen_t n = sizeof *tos;
    if ((family == AF_INET6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, tos, &n)
                            : getsockopt(fd, IPPROTO_IP, IP_TOS, tos, &n)) < 0) *tos = -1;
    n = sizeof *priority;
    if (getsockopt(fd, SOL_SOCKET, SO_PRIORITY, priority, &n) < 0) *priority = -1;
}

// The peer's port, or -1 for an address of another family.
static inline int dc_udp_peer_port(const dc_udp_peer *peer) {
    const struct sockaddr *sa = (const struct sockaddr *)&peer->address;
    if (sa->sa_family == AF_INET) return ntohs(((const struct sockaddr_in *)sa)->sin_port);
    if (sa->sa_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
    return -1;
}

// A UDP socket bound to `local` (port 0: any), kernel receive timestamps on, its
// datagrams marked urgent. Returns the descriptor, or -1 with errno set.
static inline int dc_udp_open(const dc_udp_peer *local) {
    int fd = socket(local->address.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    dc_udp_mark_urgent(fd, local->address.ss_family);
    int on = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) < 0
        || bind(fd, (const struct sockaddr *)&local->address, local->length) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

// The port the socket is bound to, or -1.
static inline int dc_udp_local_port(int fd) {
    struct sockaddr_storage a;
    socklen_t n = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &n) < 0) return -1;
    if (a.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&a)->sin_port);
    if (a.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
    return -1;
}

// Sends one datagram to `to`. Returns the bytes sent, or -1 with errno set.
static inline ssize_t dc_udp_send(int fd, const void *bytes, size_t length, const dc_udp_peer *to) {
    return sendto(fd, bytes, length, MSG_NOSIGNAL, (const struct sockaddr *)&to->address, to->length);
}

// Waits up to `timeout_ms` for one datagram. Returns its length (a datagram longer than
// `capacity` returns its full length, larger than `capacity`: the caller drops it), 0 when
// none came in time, or -1 with errno set. `*age_ns` is how long before this call returned
// the kernel received it (CLOCK_REALTIME now minus the kernel's CLOCK_REALTIME stamp), so
// that the caller can place it on any clock of its own; -1 when the kernel gave no stamp.
static inline ssize_t dc_udp_receive(int fd, void *bytes, size_t capacity, dc_udp_peer *from,
                                     int timeout_ms, int64_t *age_ns) {
    *age_ns = -1;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int ready = poll(&p, 1, timeout_ms);
    if (ready <= 0) return ready;
    struct iovec iov = { .iov_base = bytes, .iov_len = capacity };
    union { char buffer[CMSG_SPACE(sizeof(struct timespec)) * 2]; struct cmsghdr align; } control;
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_name = &from->address;
    m.msg_namelen = sizeof from->address;
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control.buffer;
    m.msg_controllen = sizeof control.buffer;
    ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT | MSG_TRUNC);
    if (n < 0) return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    from->length = m.msg_namelen;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec stamp;
            memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
            *age_ns = (int64_t)(now.tv_sec - stamp.tv_sec) * 1000000000 + (now.tv_nsec - stamp.tv_nsec);
        }
    }
    return n;
}

#endif
