package dev.ferry.host;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;

import java.util.Map;

/** Log levels set through Ferry's {@code /admin/loggers}, applied to the host's log4j loggers. */
final class LogLevels {
    private LogLevels() {
    }

    /** Sets each logger (a namespace and the loggers under it; {@code root} for the root). */
    static void apply(Map<String, String> levels) {
        for (Map.Entry<String, String> e : levels.entrySet()) {
            Level level = Level.toLevel(e.getValue(), null);
            if (level == null) {
                continue;
            }
            if ("root".equalsIgnoreCase(e.getKey())) {
                Configurator.setRootLevel(level);
            } else {
                Configurator.setLevel(e.getKey(), level);
            }
        }
    }
}
