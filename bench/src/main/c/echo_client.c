/*
 * The one TCP echo client every server is measured with: CONNECTIONS connections to HOST:PORT, each with one
 * message of SIZE bytes in flight (send it, wait for all of it back, send again), all driven by one thread with
 * epoll. Prints one RESULT line with messages echoed per second and the round-trip latency's p50 and p99 after a
 * warm-up, and a line MEASURING when the warm-up ends. Built and run by dev.lockstep.bench.Bench: cc -O2 echo_client.c; ./echo_client HOST PORT CONNECTIONS
 * SIZE WARMUP_SECONDS SECONDS
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LATENCY_BUCKETS 1000000 /* one per microsecond, up to one second */

struct connection {
    int fd;
    size_t sent;
    size_t received;
    long long began;
};

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void die(const char *what) {
    fprintf(stderr, "echo_client: %s: %s\n", what, strerror(errno));
    exit(1);
}

static unsigned latency[LATENCY_BUCKETS];

static double percentile(long long count, double fraction) {
    long long wanted = (long long) (count * fraction);
    long long seen = 0;
    for (int i = 0; i < LATENCY_BUCKETS; i++) {
        seen += latency[i];
        if (seen > wanted) {
            return i * 1000.0;
        }
    }
    return LATENCY_BUCKETS * 1000.0;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: echo_client HOST PORT CONNECTIONS SIZE WARMUP_SECONDS SECONDS\n");
        return 2;
    }
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short) atoi(argv[2]));
    if (inet_pton(AF_INET, argv[1], &address.sin_addr) != 1) {
        fprintf(stderr, "echo_client: not an IPv4 address: %s\n", argv[1]);
        return 2;
    }
    int count = atoi(argv[3]);
    size_t size = (size_t) atol(argv[4]);
    long long warmup = (long long) (atof(argv[5]) * 1e9);
    long long measure = (long long) (atof(argv[6]) * 1e9);
    char *out = malloc(size);
    char *in = malloc(size);
    struct connection *connections = calloc((size_t) count, sizeof *connections);
    memset(out, 'x', size);
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    if (epoll < 0) {
        die("epoll_create1");
    }
    for (int i = 0; i < count; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &address, sizeof address) != 0) {
            die("connect");
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        connections[i].fd = fd;
        struct epoll_event event = {.events = EPOLLIN, .data.ptr = &connections[i]};
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) != 0) {
            die("epoll_ctl");
        }
    }
    long long start = now_ns();
    long long measure_from = start + warmup;
    long long until = measure_from + measure;
    for (int i = 0; i < count; i++) {
        connections[i].began = now_ns();
        /* Blocking sends: a message fits the socket buffer, so this returns once it is queued. */
        if (send(connections[i].fd, out, size, MSG_NOSIGNAL) != (ssize_t) size) {
            die("send");
        }
    }
    long long messages = 0;
    int measuring = 0;
    struct epoll_event events[256];
    for (;;) {
        int ready = epoll_wait(epoll, events, 256, 1000);
        if (ready < 0) {
            if (errno == EINTR) {
                continue;
            }
            die("epoll_wait");
        }
        long long now = now_ns();
        if (!measuring && now >= measure_from) {
            measuring = 1;
            measure_from = now;
            /* Tells the harness to read the server's allocation counter: the measured window starts. */
            printf("MEASURING\n");
            fflush(stdout);
        }
        if (now >= until) {
            break;
        }
        for (int e = 0; e < ready; e++) {
            struct connection *c = events[e].data.ptr;
            ssize_t got = recv(c->fd, in, size - c->received, MSG_DONTWAIT);
            if (got == 0) {
                fprintf(stderr, "echo_client: the server closed a connection\n");
                return 1;
            }
            if (got < 0) {
                if (errno == EAGAIN || errno == EINTR) {
                    continue;
                }
                die("recv");
            }
            c->received += (size_t) got;
            if (c->received < size) {
                continue;
            }
            long long done = now_ns();
            if (measuring) {
                long long micros = (done - c->began) / 1000;
                latency[micros < LATENCY_BUCKETS ? micros : LATENCY_BUCKETS - 1]++;
                messages++;
            }
            c->received = 0;
            c->began = done;
            if (send(c->fd, out, size, MSG_NOSIGNAL) != (ssize_t) size) {
                die("send");
            }
        }
    }
    long long end = now_ns();
    printf("RESULT ops=%lld seconds=%.6f p50=%.0f p99=%.0f\n", messages, (end - measure_from) / 1e9,
           percentile(messages, 0.50), percentile(messages, 0.99));
    for (int i = 0; i < count; i++) {
        close(connections[i].fd);
    }
    return 0;
}
