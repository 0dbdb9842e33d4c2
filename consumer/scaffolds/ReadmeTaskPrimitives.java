import dev.lockstep.Connection;
import dev.lockstep.Context;
import dev.lockstep.Handle;
import dev.lockstep.Listener;
import dev.lockstep.Signal;
import dev.lockstep.sync.Channel;
import dev.lockstep.sync.Either;
import dev.lockstep.sync.Futures;
import dev.lockstep.sync.Join;
import dev.lockstep.sync.Lease;
import dev.lockstep.sync.Mutex;
import dev.lockstep.sync.OneShot;
import dev.lockstep.sync.Select;
import dev.lockstep.sync.Selected;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The README's task primitives, compiled against the names they use. Not run: its accept loop serves until the
 * runner stops, and each primitive runs on both runtimes in the conformance suite.
 */
class ReadmeTaskPrimitives {
    record Request() {
    }

    record Event() {
    }

    record Config() {
    }

    record Reply() {
    }

    interface Log {
        void append(String entry);
    }

    void primitives(Context ctx, Request request, Log log, String entry, InetSocketAddress address,
                    Channel<Event> events, Duration heartbeat, Handle<Reply> backend, Duration deadline) {
        List<Handle<Integer>> handles = new ArrayList<>();
        // README: Channel<Request> requests = Channel.bounded(64);        // many producers, many consumers, first come first served
    }

    void serve(Context ctx, Connection connection) {
    }

    void handle(Event event) {
    }

    void sendHeartbeat() {
    }
}
