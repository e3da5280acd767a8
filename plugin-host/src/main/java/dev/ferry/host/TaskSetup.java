package dev.ferry.host;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.runtime.ConnectorConfig;
import org.apache.kafka.connect.runtime.SinkConnectorConfig;
import org.apache.kafka.connect.runtime.SourceConnectorConfig;
import org.apache.kafka.connect.runtime.TaskConfig;
import org.apache.kafka.connect.runtime.TransformationChain;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.runtime.errors.ErrorHandlingMetrics;
import org.apache.kafka.connect.runtime.errors.RetryWithToleranceOperator;
import org.apache.kafka.connect.runtime.isolation.LoaderSwap;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.util.ConnectorTaskId;

import java.util.List;
import java.util.Map;

/**
 * What Java's worker builds around a task before starting it: the task instance from the
 * connector's class loader, its converters (connector's settings, else the worker's), the
 * error handler and the transformation chain, all with Kafka's own classes.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class TaskSetup {
    final Host host;
    final ConnectorTaskId id;
    final Map<String, String> taskConfig;
    final ConnectorConfig connectorConfig;
    final ClassLoader loader;
    final Task task;
    final Converter keyConverter;
    final Converter valueConverter;
    final HeaderConverter headerConverter;
    final ErrorHandlingMetrics errorMetrics;
    final RetryWithToleranceOperator retry;
    final TransformationChain chain;

    TaskSetup(Host host, ObjectNode h, boolean sink) throws Exception {
        this.host = host;
        Map<String, String> connectorProps = Host.strings(h.get("connectorConfig"));
        taskConfig = Host.strings(h.get("taskConfig"));
        id = new ConnectorTaskId(h.get("connector").asText(), h.get("taskNumber").asInt());
        loader = host.plugins.connectorClass(connectorProps.get(ConnectorConfig.CONNECTOR_CLASS_CONFIG)).getClassLoader();
        try (LoaderSwap swap = host.plugins.withClassLoader(loader)) {
            connectorConfig = sink
                    ? new SinkConnectorConfig(host.plugins, connectorProps)
                    : new SourceConnectorConfig(host.plugins, connectorProps, false);
            Class<? extends Task> taskClass = new TaskConfig(taskConfig).getClass(TaskConfig.TASK_CLASS_CONFIG).asSubclass(Task.class);
            task = host.plugins.newTask(taskClass);
            WorkerConfig worker = host.workerConfig;
            Converter key = host.plugins.newConverter(connectorConfig, ConnectorConfig.KEY_CONVERTER_CLASS_CONFIG, ConnectorConfig.KEY_CONVERTER_VERSION_CONFIG);
            Converter value = host.plugins.newConverter(connectorConfig, ConnectorConfig.VALUE_CONVERTER_CLASS_CONFIG, ConnectorConfig.VALUE_CONVERTER_VERSION_CONFIG);
            HeaderConverter header = host.plugins.newHeaderConverter(connectorConfig, ConnectorConfig.HEADER_CONVERTER_CLASS_CONFIG, ConnectorConfig.HEADER_CONVERTER_VERSION_CONFIG);
            keyConverter = key != null ? key : host.plugins.newConverter(worker, WorkerConfig.KEY_CONVERTER_CLASS_CONFIG, WorkerConfig.KEY_CONVERTER_VERSION);
            valueConverter = value != null ? value : host.plugins.newConverter(worker, WorkerConfig.VALUE_CONVERTER_CLASS_CONFIG, WorkerConfig.VALUE_CONVERTER_VERSION);
            headerConverter = header != null ? header : host.plugins.newHeaderConverter(worker, WorkerConfig.HEADER_CONVERTER_CLASS_CONFIG, WorkerConfig.HEADER_CONVERTER_VERSION);
            errorMetrics = new ErrorHandlingMetrics(id, host.metrics);
            retry = new RetryWithToleranceOperator<>(connectorConfig.errorRetryTimeout(),
                    connectorConfig.errorMaxDelayInMillis(), connectorConfig.errorToleranceType(), Time.SYSTEM, errorMetrics);
            List stages = connectorConfig.transformationStages(host.plugins, id, host.metrics);
            chain = new TransformationChain(stages, retry);
        }
    }

    LoaderSwap swap() {
        return host.plugins.withClassLoader(loader);
    }

    void close() {
        Utils.closeQuietly(chain, "transformation chain");
        Utils.closeQuietly(retry, "error handler");
        Utils.closeQuietly(errorMetrics, "error handling metrics");
        Utils.closeQuietly(keyConverter, "key converter");
        Utils.closeQuietly(valueConverter, "value converter");
        Utils.closeQuietly(headerConverter, "header converter");
    }
}
