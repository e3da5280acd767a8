package dev.ferry.host;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Binary fields of record batches: big-endian integers, length-prefixed strings and bytes (-1 is null). */
final class Wire {
    private Wire() { }

    static final class Out {
        final ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
        final DataOutputStream data = new DataOutputStream(buffer);

        void bytes(byte[] b) throws IOException {
            if (b == null) {
                data.writeInt(-1);
            } else {
                data.writeInt(b.length);
                data.write(b);
            }
        }

        void string(String s) throws IOException {
            bytes(s == null ? null : s.getBytes(StandardCharsets.UTF_8));
        }

        byte[] toByteArray() {
            return buffer.toByteArray();
        }
    }

    static byte[] bytes(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            return null;
        }
        byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }

    static String string(DataInputStream in) throws IOException {
        byte[] b = bytes(in);
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
