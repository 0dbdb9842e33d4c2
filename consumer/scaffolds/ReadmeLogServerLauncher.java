import dev.lockstep.Task;
import dev.lockstep.uring.UringRunner;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/** The README's one-line launcher of a LogServer node, compiled as LogServer.main has it. Not run here. */
class ReadmeLogServerLauncher {
    static void main(String[] args) throws Exception {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        // README: UringRunner.builder().storage(Path.of(args[2])).build().start(node(address));   // address: 127.0.0.<id>:7000
    }

    static Task<Void> node(InetSocketAddress address) {
        return LogServer.node(address);
    }
}
