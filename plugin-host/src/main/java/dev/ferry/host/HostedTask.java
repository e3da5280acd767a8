package dev.ferry.host;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** A source or sink task running in this host. */
interface HostedTask {
    String version();

    /** Handles a task-specific call on the task's own thread. */
    Host.Result call(String op, ObjectNode header, byte[] payload) throws Exception;

    /** Asks the task to stop; runs beside the task's thread, as Java's worker does. */
    void stop();

    /** Releases what the task's pipeline holds, after stop. */
    void close();
}
