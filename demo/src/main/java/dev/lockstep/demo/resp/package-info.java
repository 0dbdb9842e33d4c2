/**
 * The demo's key-value store behind the Redis protocol (RESP2), so that {@code redis-cli} and {@code
 * redis-benchmark} work against it: {@code RespCodec} parses requests and encodes replies, {@code RespProtocol} serves one
 * connection over a {@link dev.lockstep.demo.kv.KvStore}, and {@link dev.lockstep.demo.resp.RespService}, the one
 * public class, runs it on runtime-uring for {@code ./lockstep resp} and the benchmark against {@code redis-server}.
 *
 * <p>May use {@code dev.lockstep} (the API), {@code dev.lockstep.demo.kv} and, in {@code RespService} only,
 * runtime-uring to start a runner.
 */
package dev.lockstep.demo.resp;
