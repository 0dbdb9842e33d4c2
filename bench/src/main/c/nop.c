/*
 * The reference for Lockstep's NOP round trip: liburing, one ring, DEPTH no-ops kept in flight, each completion
 * answered by a new no-op, io_uring_submit_and_wait(1) per turn. Prints one RESULT line after a warm-up: operations, seconds and the process's CPU time in the measured window.
 * Built and run by dev.lockstep.bench.Bench: cc -O2 nop.c -luring; ./nop DEPTH WARMUP_SECONDS SECONDS
 */
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void queue_nop(struct io_uring *ring) {
    struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
    if (sqe == NULL) {
        fprintf(stderr, "nop: submission queue full\n");
        exit(1);
    }
    io_uring_prep_nop(sqe);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: nop DEPTH WARMUP_SECONDS SECONDS\n");
        return 2;
    }
    int depth = atoi(argv[1]);
    long long warmup = (long long) (atof(argv[2]) * 1e9);
    long long measure = (long long) (atof(argv[3]) * 1e9);
    struct io_uring ring;
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
#if defined(IORING_SETUP_SINGLE_ISSUER) && defined(IORING_SETUP_DEFER_TASKRUN)
    params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
#endif
    int failed = io_uring_queue_init_params(256, &ring, &params);
    if (failed) {
        memset(&params, 0, sizeof params);
        failed = io_uring_queue_init_params(256, &ring, &params);
    }
    if (failed) {
        fprintf(stderr, "nop: io_uring_queue_init: %s\n", strerror(-failed));
        return 1;
    }
    for (int i = 0; i < depth; i++) {
        queue_nop(&ring);
    }
    long long start = now_ns();
    long long measure_from = start + warmup;
    long long until = measure_from + measure;
    long long ops = 0;
    int measuring = 0;
    long long cpu_from = 0;
    for (;;) {
        int submitted = io_uring_submit_and_wait(&ring, 1);
        if (submitted < 0) {
            fprintf(stderr, "nop: io_uring_submit_and_wait: %s\n", strerror(-submitted));
            return 1;
        }
        struct io_uring_cqe *cqe;
        unsigned head;
        unsigned seen = 0;
        io_uring_for_each_cqe(&ring, head, cqe) {
            seen++;
        }
        io_uring_cq_advance(&ring, seen);
        long long now = now_ns();
        if (!measuring && now >= measure_from) {
            measuring = 1;
            measure_from = now;
            cpu_from = cpu_ns();
            ops = 0;
        } else if (measuring) {
            ops += seen;
        }
        if (now >= until) {
            printf("RESULT ops=%lld seconds=%.6f alloc=0 cpu=%lld\n", ops, (now - measure_from) / 1e9,
                   cpu_ns() - cpu_from);
            return 0;
        }
        for (unsigned i = 0; i < seen; i++) {
            queue_nop(&ring);
        }
    }
}
