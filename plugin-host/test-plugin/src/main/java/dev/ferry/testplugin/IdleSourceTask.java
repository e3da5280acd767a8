package dev.ferry.testplugin;

import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * A source task that emits nothing: poll sleeps 100 ms and returns null until stopped. The task of
 * {@link ReconfiguringSourceConnector}, whose scenario is about the number of tasks only.
 */
public class IdleSourceTask extends SourceTask {
    private volatile boolean stopping;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        stopping = false;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (!stopping) {
            Thread.sleep(100);
        }
        return null;
    }

    @Override
    public void stop() {
        stopping = true;
    }
}
