#!/usr/bin/env bash
# Strimzi's Kafka Connect entry point, for Ferry. The operator runs /opt/kafka/kafka_connect_run.sh
# in a pod with its generated worker config in /opt/kafka/custom-config/ (kafka-connect.properties,
# log4j2.properties, metrics-config.json) and the variables it sets (ADVERTISED_HOSTNAME is made
# here, as Strimzi's script makes it); this runs `ferry distributed` where Strimzi's image runs
# connect-distributed.sh, under tini, so SIGTERM stops the worker gracefully.
set -e
set +x

# /tmp is an emptyDir that outlives container restarts in the pod: start clean, as Strimzi does.
rm -rf /tmp/* || true

ADVERTISED_HOSTNAME=$(hostname -f | cut -d "." -f1-4)
export ADVERTISED_HOSTNAME
mkdir -p /tmp/kafka

CONFIG=/tmp/strimzi-connect.properties
echo "Starting Kafka Connect with configuration:"
tee "$CONFIG" < "$KAFKA_HOME/custom-config/kafka-connect.properties" | sed -e 's/sasl.jaas.config=.*/sasl.jaas.config=[hidden]/g'
echo ""

has_key() { grep -Eq "^[[:space:]]*$1[[:space:]]*[=:]" "$CONFIG"; }

# Metrics. With the JMX exporter (metricsConfig.type: jmxPrometheusExporter) Strimzi's image
# serves them on 9404: Ferry serves its metrics there under the names the JMX exporter gives
# Java's MBeans with Strimzi's example rules. Strimzi's metrics reporter needs nothing here:
# Ferry serves its names on prometheus.metrics.reporter.listener itself.
METRICS_PORT=${FERRY_METRICS_PORT:-9404}
if [ "$KAFKA_CONNECT_JMX_EXPORTER_ENABLED" = "true" ] && ! has_key 'ferry\.metrics\.listeners'; then
  if [ -f "$KAFKA_HOME/custom-config/metrics-config.json" ]; then
    echo "Ferry: serving metrics on port $METRICS_PORT under the JMX exporter's names for Strimzi's example rules; the rules in metrics-config.json are not read" >&2
  fi
  printf '\nferry.metrics.listeners=http://0.0.0.0:%s\n' "$METRICS_PORT" >> "$CONFIG"
fi

# Logging: Ferry takes the log4j2 file from KAFKA_LOG4J_OPTS as Java's worker does, its root and
# logger levels, and reads it again when it changes (monitorInterval), as Strimzi expects.
if [ -z "$KAFKA_LOG4J_OPTS" ]; then
  export KAFKA_LOG4J_OPTS="-Dlog4j2.configurationFile=$KAFKA_HOME/custom-config/log4j2.properties"
fi

exec /usr/bin/tini -w -e 143 -- /opt/ferry/bin/ferry distributed "$CONFIG"
