package org.apache.kafka.common.utils;

/**
 * The name Kafka's clients had for their JMX name sanitizer until 4.3. Kafka 4.4 moved the class
 * to {@code org.apache.kafka.common.utils.internals}, but plugins compiled against older clients
 * still call it here (Debezium 3.6 registers its metrics through it), and would fail with
 * {@code NoClassDefFoundError} on a 4.4 runtime. This bridge keeps them loading: the plugin
 * host's class path serves {@code org.apache.kafka.common} to every plugin, and
 * scripts/java-connect compiles this same file onto the reference Java worker's class path.
 */
public final class Sanitizer {
    private Sanitizer() {
    }

    public static String sanitize(String name) {
        return org.apache.kafka.common.utils.internals.Sanitizer.sanitize(name);
    }

    public static String desanitize(String name) {
        return org.apache.kafka.common.utils.internals.Sanitizer.desanitize(name);
    }

    public static String jmxSanitize(String name) {
        return org.apache.kafka.common.utils.internals.Sanitizer.jmxSanitize(name);
    }
}
