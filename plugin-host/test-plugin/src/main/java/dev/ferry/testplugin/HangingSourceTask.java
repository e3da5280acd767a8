package dev.ferry.testplugin;

import java.util.List;
import java.util.Map;

import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/** The task of {@link HangingSourceConnector}: emits nothing, and blocks in poll when told to. */
public class HangingSourceTask extends SourceTask {
    private Map<String, String> props = Map.of();
    private volatile boolean stopping;

    @Override
    public String version() {
        return "0.1.0";
    }

    @Override
    public void start(Map<String, String> props) {
        this.props = props;
        stopping = false;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        HangingSourceConnector.hangIf("poll", props);
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
