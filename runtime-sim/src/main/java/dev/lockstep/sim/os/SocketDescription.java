package dev.lockstep.sim.os;

/** What an fd of a socket names: a {@link SimSocket} of the {@link SimNetwork}. */
final class SocketDescription extends Description {
    final SimNetwork network;
    final SimSocket socket;

    SocketDescription(SimNetwork network, SimSocket socket) {
        this.network = network;
        this.socket = socket;
    }

    @Override
    void release() {
        network.close(socket);
    }

    @Override
    String subject() {
        return socket.local != null ? String.valueOf(socket.local) : "socket#" + socket.id;
    }

    @Override
    String kind() {
        return socket.state == SimSocket.State.LISTENING ? "listener"
                : socket.remote != null ? "connection to " + socket.remote + ", local" : "socket";
    }
}
