package dev.ferry.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * The framed protocol between Ferry and this host (docs/plugin-host-protocol.md): each frame is
 * a big-endian u32 length of what follows, a u32 length of the JSON header, the header, and a
 * binary payload (record batches) filling the rest.
 */
final class Frames {
    static final ObjectMapper JSON = new ObjectMapper();
    static final byte[] NO_PAYLOAD = new byte[0];

    record Frame(ObjectNode header, byte[] payload) { }

    private final DataInputStream in;
    private final DataOutputStream out;

    Frames(InputStream in, OutputStream out) {
        this.in = new DataInputStream(in);
        this.out = new DataOutputStream(out);
    }

    /** The next frame, or null once Ferry closed the stream. */
    Frame read() throws IOException {
        int length;
        try {
            length = in.readInt();
        } catch (EOFException e) {
            return null;
        }
        int headerLength = in.readInt();
        byte[] header = new byte[headerLength];
        in.readFully(header);
        byte[] payload = new byte[length - 4 - headerLength];
        in.readFully(payload);
        return new Frame((ObjectNode) JSON.readTree(header), payload);
    }

    synchronized void write(ObjectNode header, byte[] payload) throws IOException {
        byte[] json = JSON.writeValueAsBytes(header);
        out.writeInt(4 + json.length + payload.length);
        out.writeInt(json.length);
        out.write(json);
        out.write(payload);
        out.flush();
    }
}
