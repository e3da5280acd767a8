//! Ferry's image (`scripts/image build`, FERRY_IMAGE) run with podman as Strimzi's operator and
//! Confluent's conventions run a Kafka Connect image, against the test broker (host network);
//! and the Helm chart (deploy/helm/ferry) rendered with `helm template` (FERRY_HELM) and its
//! worker config run.
#![cfg(feature = "kafka-integration-tests")]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::*;

const SLOW: Duration = Duration::from_secs(120);

fn image() -> String {
    std::env::var("FERRY_IMAGE").unwrap_or_else(|_| {
        panic!("FERRY_IMAGE must name an image built by scripts/image build (scripts/test builds ferry:test)")
    })
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn env_var(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| panic!("{var} must be set (scripts/test sets it)"))
}

/// A container of the image, in the foreground of `scripts/image run` (its output is the log;
/// SIGTERM to it reaches the container, as the kubelet's does), removed when dropped.
struct Container {
    name: String,
    worker: Ferry,
}

impl Container {
    fn start(dir: &Path, port: u16, args: &[&str]) -> Container {
        let name = unique("ferry-image");
        let log = dir.join(format!("{name}.log"));
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(root().join("scripts/image"))
            .arg("run")
            .args(["--rm", "--name", &name])
            .args(args)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        Container {
            name,
            worker: Ferry { child, port, log },
        }
    }

    /// Waits for the worker's REST API.
    fn answering(mut self) -> Container {
        let deadline = Instant::now() + SLOW;
        while self
            .worker
            .get("/health")
            .is_none_or(|(code, _)| code != 200)
        {
            if let Some(status) = self.worker.child.try_wait().unwrap() {
                panic!(
                    "the container exited ({status}): {}",
                    self.worker.log_text()
                );
            }
            assert!(
                Instant::now() < deadline,
                "the container's worker did not answer: {}",
                self.worker.log_text()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        self
    }

    /// SIGTERM, as the kubelet stops a container, and the exit status.
    fn terminate(&mut self) -> i32 {
        Command::new("kill")
            .args(["-TERM", &self.worker.child.id().to_string()])
            .status()
            .unwrap();
        self.exit_code()
    }

    fn exec(&self, command: &[&str]) -> String {
        let out = Command::new("podman")
            .arg("exec")
            .arg(&self.name)
            .args(command)
            .output()
            .unwrap();
        assert!(out.status.success(), "podman exec {command:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The exit status once the container stopped by itself.
    fn exit_code(&mut self) -> i32 {
        let deadline = Instant::now() + SLOW;
        loop {
            if let Some(status) = self.worker.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "the container did not stop");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        let _ = Command::new("podman")
            .args(["rm", "-f", "-t", "0", &self.name])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Strimzi's mounted layout: the generated config and log4j2 config in custom-config, the
/// cluster CA and the user's certificate and key as the Secrets' files.
struct StrimziLayout {
    custom_config: PathBuf,
    certs: PathBuf,
    data: PathBuf,
}

fn strimzi_layout(dir: &Path, properties: &str) -> StrimziLayout {
    let tls = PathBuf::from(env_var("FERRY_KAFKA_TLS"));
    let custom_config = dir.join("custom-config");
    let certs = dir.join("connect-certs");
    let data = dir.join("data");
    for d in [
        &custom_config,
        &certs.join("my-cluster-cluster-ca-cert"),
        &certs.join("my-user"),
        &data,
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    write_file(&custom_config.join("kafka-connect.properties"), properties);
    write_file(
        &custom_config.join("log4j2.properties"),
        "name=KafkaConnectConfig\nappender.console.type=Console\nappender.console.name=STDOUT\nrootLogger.level=INFO\nrootLogger.appenderRefs=console\nrootLogger.appenderRef.console.ref=STDOUT\nlogger.reflections.name=org.reflections\nlogger.reflections.level=ERROR\n# Strimzi writes 30; a second keeps the test short.\nmonitorInterval=1\n",
    );
    write_file(
        &custom_config.join("metrics-config.json"),
        "{\"lowercaseOutputName\":true,\"rules\":[]}",
    );
    std::fs::copy(
        tls.join("ca.pem"),
        certs.join("my-cluster-cluster-ca-cert/ca.crt"),
    )
    .unwrap();
    std::fs::copy(tls.join("client.pem"), certs.join("my-user/user.crt")).unwrap();
    std::fs::copy(tls.join("client.key"), certs.join("my-user/user.key")).unwrap();
    // The container's user (1001) reads the mounts and writes the sink file.
    Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(dir)
        .status()
        .unwrap();
    Command::new("chmod")
        .arg("777")
        .arg(&data)
        .status()
        .unwrap();
    StrimziLayout {
        custom_config,
        certs,
        data,
    }
}

/// The worker config Strimzi's operator generates for a KafkaConnect with TLS trust and TLS
/// client authentication (KafkaConnectConfigurationBuilder's sections, in its order), with
/// `trust` and `key` the values of the certificate keys.
fn strimzi_properties(group: &str, port: u16, trust: &str, chain: &str, key: &str) -> String {
    let mut tls = String::new();
    for prefix in ["", "producer.", "consumer.", "admin."] {
        tls.push_str(&format!(
            "{prefix}ssl.truststore.certificates={trust}\n{prefix}ssl.truststore.type=PEM\n"
        ));
    }
    let mut auth = String::new();
    for prefix in ["", "producer.", "consumer.", "admin."] {
        auth.push_str(&format!(
            "{prefix}ssl.keystore.certificate.chain={chain}\n{prefix}ssl.keystore.key={key}\n{prefix}ssl.keystore.type=PEM\n"
        ));
    }
    let mut protocol = String::new();
    for prefix in ["", "producer.", "consumer.", "admin."] {
        protocol.push_str(&format!("{prefix}security.protocol=SSL\n"));
    }
    format!(
        "##############################\n# This file is automatically generated by the Strimzi Cluster Operator\n##############################\n\
         bootstrap.servers={bootstrap}\n\
         group.id={group}\nconfig.storage.topic={group}-configs\nstatus.storage.topic={group}-status\noffset.storage.topic={group}-offsets\n\
         rest.advertised.host.name=${{strimzienv:ADVERTISED_HOSTNAME}}\nrest.advertised.port={port}\n\
         plugin.path=/opt/kafka/plugins\n\
         {tls}{auth}\
         config.providers=strimzienv,strimzifile,strimzidir,strimzisecrets\n\
         config.providers.strimzienv.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider\n\
         config.providers.strimzienv.param.allowlist.pattern=.*\n\
         config.providers.strimzifile.class=org.apache.kafka.common.config.provider.FileConfigProvider\n\
         config.providers.strimzidir.class=org.apache.kafka.common.config.provider.DirectoryConfigProvider\n\
         config.providers.strimzidir.param.allowed.paths=/opt/kafka\n\
         config.providers.strimzisecrets.class=io.strimzi.kafka.KubernetesSecretConfigProvider\n\
         # User provided configuration\n\
         config.storage.replication.factor=-1\noffset.storage.replication.factor=-1\nstatus.storage.replication.factor=-1\n\
         key.converter=org.apache.kafka.connect.storage.StringConverter\nvalue.converter=org.apache.kafka.connect.storage.StringConverter\n\
         offset.flush.interval.ms=1000\n\
         # Strimzi leaves listeners at Kafka's default (:8083); the test picks a free port.\n\
         listeners=http://127.0.0.1:{port}\n\
         {protocol}",
        bootstrap = env_var("KAFKA_SSL"),
    )
}

fn strimzi_mounts(layout: &StrimziLayout) -> Vec<String> {
    vec![
        "-v".into(),
        format!(
            "{}:/opt/kafka/custom-config:ro",
            layout.custom_config.display()
        ),
        "-v".into(),
        format!("{}:/opt/kafka/connect-certs:ro", layout.certs.display()),
        "-v".into(),
        format!("{}:/mnt/data", layout.data.display()),
        "--tmpfs".into(),
        "/tmp:size=5m".into(),
    ]
}

/// Creates `file-in`, a FileStreamSource of the mounted /mnt/data/in.txt, into a new topic.
fn copy_mounted_file(container: &Container, prefix: &str) -> String {
    let topic = unique(prefix);
    let (code, body) = container.worker.call(
        "PUT",
        "/connectors/file-in/config",
        Some(&format!(
            r#"{{"connector.class":"FileStreamSource","file":"/mnt/data/in.txt","topic":"{topic}"}}"#
        )),
    );
    assert_eq!(code, 201, "{body}");
    topic
}

/// The 0.47–1.0 operators mounted the certificates' Secrets under /opt/kafka/connect-certs;
/// the directory provider reads them where Strimzi 1.1+ names `strimzisecrets` (which needs an
/// API server, see the next test).
#[test]
fn strimzi_s_layout_runs_a_tls_worker_with_its_metrics_port_as_uid_1001_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let (port, metrics_port) = (port(), port());
    let group = unique("strimzi");
    let properties = strimzi_properties(
        &group,
        port,
        "${strimzidir:/opt/kafka/connect-certs/my-cluster-cluster-ca-cert:ca.crt}",
        "${strimzidir:/opt/kafka/connect-certs/my-user:user.crt}",
        "${strimzidir:/opt/kafka/connect-certs/my-user:user.key}",
    ) + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"never-in-a-log\";\n";
    let layout = strimzi_layout(dir.path(), &properties);
    write_file(&layout.data.join("in.txt"), &numbered_lines(0, 50));
    let metrics = metrics_port.to_string();
    // A pod's host name is its name; the kubelet's /etc/hosts gives the headless service's FQDN.
    let hosts = dir.path().join("hosts");
    write_file(
        &hosts,
        "127.0.0.1 localhost\n127.0.0.1 my-connect-connect-0.my-connect-connect.myproject.svc.cluster.local my-connect-connect-0\n",
    );
    Command::new("chmod")
        .arg("a+r")
        .arg(&hosts)
        .status()
        .unwrap();
    let mut args: Vec<String> = strimzi_mounts(&layout);
    args.extend(
        [
            "-v",
            &format!("{}:/etc/hosts:ro", hosts.display()),
            "--hostname",
            "my-connect-connect-0",
            "-e",
            "KAFKA_CONNECT_JMX_EXPORTER_ENABLED=true",
            "-e",
            &format!("FERRY_METRICS_PORT={metrics}"),
            "-e",
            "STRIMZI_KAFKA_GC_LOG_ENABLED=false",
        ]
        .map(str::to_owned),
    );
    args.push(image());
    args.push("/opt/kafka/kafka_connect_run.sh".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let container = Container::start(dir.path(), port, &args).answering();

    assert_eq!(container.exec(&["id", "-u"]).trim(), "1001");
    // The generated config is printed as Strimzi's script prints it, the JAAS line masked.
    let log = container.worker.log_text();
    assert!(
        log.contains("Starting Kafka Connect with configuration:"),
        "{log}"
    );
    assert!(log.contains("sasl.jaas.config=[hidden]"), "{log}");
    assert!(!log.contains("never-in-a-log"), "{log}");

    // A source over the TLS listener with the client certificate, as every client is configured.
    let topic = copy_mounted_file(&container, "strimzi-topic");
    wait_until("50 records through the TLS listener", SLOW, || {
        topic_records(&topic) >= 50
    });
    let records = read_all(&topic, 50);
    assert_eq!(records.len(), 50);
    assert!(
        records[0]
            .0
            .as_deref()
            .unwrap_or_default()
            .starts_with("line 0000000 "),
        "{records:?}"
    );
    // The worker advertises the host name Strimzi's script derives from the pod's FQDN.
    wait_until("the connector's worker id", SLOW, || {
        container.worker.status("file-in")["connector"]["worker_id"]
            == format!("my-connect-connect-0.my-connect-connect.myproject.svc:{port}").as_str()
    });
    let text = scrape(metrics_port);
    assert_eq!(
        metric(&text, "kafka_connect_worker_connector_count", &[]),
        Some(1.0),
        "{text}"
    );
    assert!(
        log.contains("the rules in metrics-config.json are not read"),
        "{log}"
    );

    // Levels from the log4j2 file, and a change of the file (Strimzi's logging update) applied
    // to the running worker.
    let level = |logger: &str| {
        container
            .worker
            .call("GET", &format!("/admin/loggers/{logger}"), None)
            .1["level"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(level("root"), "INFO");
    assert_eq!(level("org.reflections"), "ERROR");
    write_file(
        &layout.custom_config.join("log4j2.properties"),
        "rootLogger.level=WARN\nlogger.file.name=org.apache.kafka.connect.file\nlogger.file.level=DEBUG\n\
         logger.ferry.name=ferry\nlogger.ferry.level=INFO\nmonitorInterval=1\n",
    );
    wait_until("the changed log4j2 file applied", SLOW, || {
        level("root") == "WARN" && level("org.apache.kafka.connect.file") == "DEBUG"
    });
    assert_eq!(level("org.reflections"), "WARN");

    // SIGTERM (the kubelet's stop) ends the worker gracefully within Strimzi's default grace
    // period (30 s): exit 0 through tini.
    let mut container = container;
    let started = Instant::now();
    let code = container.terminate();
    let log = container.worker.log_text();
    assert_eq!(code, 0, "{log}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(log.contains("Ferry distributed worker stopped"), "{log}");
}

/// `metricsConfig.type: strimziMetricsReporter`: the operator names the reporter in every
/// `*metric.reporters` and writes its listener and its default Connect allowlist.
#[test]
fn strimzi_s_metrics_reporter_config_serves_the_reporter_s_names_on_its_listener() {
    let dir = tempfile::tempdir().unwrap();
    let (port, reporter_port) = (port(), port());
    let mut reporter = String::new();
    for prefix in ["", "admin.", "producer.", "consumer."] {
        reporter.push_str(&format!(
            "{prefix}metric.reporters=io.strimzi.kafka.metrics.prometheus.ClientMetricsReporter\n\
             {prefix}prometheus.metrics.reporter.listener.enable=true\n\
             {prefix}prometheus.metrics.reporter.listener=http://:{reporter_port}\n\
             {prefix}prometheus.metrics.reporter.allowlist=kafka_admin_client_admin_client_metrics_connection_count, kafka_connect_connect_coordinator_metrics.*, kafka_connect_connector_metrics.*, kafka_connect_connector_task_metrics.*, kafka_connect_connect_worker_metrics_.*, kafka_connect_connect_worker_rebalance.*, kafka_connect_task_error_metrics.*, kafka_consumer_consumer_coordinator_metrics.*, kafka_consumer_consumer_fetch_manager_metrics.*, kafka_consumer_consumer_metrics.*, kafka_producer_producer_metrics.*, kafka_producer_producer_node_metrics_incoming_byte, kafka_producer_producer_topic.*\n"
        ));
    }
    let properties = strimzi_properties(
        &unique("strimzi-reporter"),
        port,
        "${strimzidir:/opt/kafka/connect-certs/my-cluster-cluster-ca-cert:ca.crt}",
        "${strimzidir:/opt/kafka/connect-certs/my-user:user.crt}",
        "${strimzidir:/opt/kafka/connect-certs/my-user:user.key}",
    ) + &reporter;
    let layout = strimzi_layout(dir.path(), &properties);
    write_file(&layout.data.join("in.txt"), &numbered_lines(0, 5));
    let mut args = strimzi_mounts(&layout);
    args.extend(["-e", "KAFKA_CONNECT_JMX_EXPORTER_ENABLED=false"].map(str::to_owned));
    args.push(image());
    args.push("/opt/kafka/kafka_connect_run.sh".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let container = Container::start(dir.path(), port, &args).answering();
    let topic = copy_mounted_file(&container, "strimzi-reporter-topic");
    wait_until("5 records", SLOW, || topic_records(&topic) >= 5);
    wait_until("the reporter's names on its listener", SLOW, || {
        let text = scrape(reporter_port);
        text.lines().any(|l| l == "kafka_connect_connect_worker_metrics_connector_count 1.0")
            && text.lines().any(|l| {
                l == "kafka_connect_connector_metrics_status_info{connector=\"file-in\",status=\"running\"} 1.0"
            })
            && text.contains("# TYPE kafka_connect_connector_task_metrics_running_ratio gauge")
    });
    let text = scrape(reporter_port);
    // Outside the allowlist (source-task-metrics), and the JMX exporter's names, are not there.
    assert!(
        !text.contains("kafka_connect_source_task_metrics"),
        "{text}"
    );
    assert!(
        !text.contains("kafka_connect_worker_connector_count"),
        "{text}"
    );
    assert!(
        !text.lines().filter(|l| !l.starts_with('#')).any(|l| l
            .split(['{', ' '])
            .next()
            .unwrap_or_default()
            .ends_with("_total")),
        "{text}"
    );
    let log = container.worker.log_text();
    assert!(!log.contains("ClientMetricsReporter is ignored"), "{log}");
}

#[test]
fn strimzi_s_kubernetes_secret_provider_outside_a_pod_stops_start_up_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let properties = strimzi_properties(
        &unique("strimzi-secrets"),
        port,
        "${strimzisecrets:myproject/my-connect-connect-tls-trusted-certs:ca.crt}",
        "${strimzisecrets:myproject/my-user:user.crt}",
        "${strimzisecrets:myproject/my-user:user.key}",
    );
    let layout = strimzi_layout(dir.path(), &properties);
    let mut args = strimzi_mounts(&layout);
    args.push(image());
    args.push("/opt/kafka/kafka_connect_run.sh".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut container = Container::start(dir.path(), port, &args);
    assert_ne!(container.exit_code(), 0);
    let log = container.worker.log_text();
    assert!(
        log.contains("Config provider strimzisecrets (io.strimzi.kafka.KubernetesSecretConfigProvider) needs the Kubernetes API server, and none is reachable: KUBERNETES_SERVICE_HOST is not set"),
        "{log}"
    );
}

fn confluent_env(group: &str, port: u16) -> Vec<(String, String)> {
    [
        ("CONNECT_BOOTSTRAP_SERVERS", bootstrap()),
        ("CONNECT_GROUP_ID", group.to_owned()),
        ("CONNECT_CONFIG_STORAGE_TOPIC", format!("{group}-configs")),
        ("CONNECT_OFFSET_STORAGE_TOPIC", format!("{group}-offsets")),
        ("CONNECT_STATUS_STORAGE_TOPIC", format!("{group}-status")),
        ("CONNECT_CONFIG_STORAGE_REPLICATION_FACTOR", "1".into()),
        ("CONNECT_OFFSET_STORAGE_REPLICATION_FACTOR", "1".into()),
        ("CONNECT_STATUS_STORAGE_REPLICATION_FACTOR", "1".into()),
        (
            "CONNECT_KEY_CONVERTER",
            "org.apache.kafka.connect.storage.StringConverter".into(),
        ),
        (
            "CONNECT_VALUE_CONVERTER",
            "org.apache.kafka.connect.json.JsonConverter".into(),
        ),
        ("CONNECT_VALUE_CONVERTER_SCHEMAS_ENABLE", "false".into()),
        ("CONNECT_REST_ADVERTISED_HOST_NAME", "127.0.0.1".into()),
        ("CONNECT_REST_PORT", port.to_string()),
        // `___` is `-` and `__` is `_`, as cp-kafka-connect maps them: a provider name the
        // worker would not find a class for (and refuse to start) if they were mapped wrong.
        ("CONNECT_CONFIG_PROVIDERS", "my-env,dir_p".into()),
        (
            "CONNECT_CONFIG_PROVIDERS_MY___ENV_CLASS",
            "org.apache.kafka.common.config.provider.EnvVarConfigProvider".into(),
        ),
        (
            "CONNECT_CONFIG_PROVIDERS_DIR__P_CLASS",
            "org.apache.kafka.common.config.provider.DirectoryConfigProvider".into(),
        ),
        (
            "CONNECT_PRODUCER_CLIENT_DNS_LOOKUP",
            "use_all_dns_ips".into(),
        ),
        ("CONNECT_LOG4J_ROOT_LOGLEVEL", "INFO".into()),
        (
            "CONNECT_LOG4J_LOGGERS",
            "org.apache.kafka.connect.file=DEBUG,org.apache.kafka.clients=WARN".into(),
        ),
        ("MY__SETTING", "not a worker key".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

#[test]
fn confluent_style_connect_variables_configure_the_worker() {
    let dir = tempfile::tempdir().unwrap();
    let port = port();
    let group = unique("cp");
    let mut args = Vec::new();
    for (k, v) in confluent_env(&group, port) {
        args.push("-e".to_owned());
        args.push(format!("{k}={v}"));
    }
    args.push(image());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let container = Container::start(dir.path(), port, &args).answering();
    let properties = container.exec(&["cat", "/etc/kafka-connect/kafka-connect.properties"]);
    for line in [
        format!("bootstrap.servers={}", bootstrap()),
        format!("group.id={group}"),
        format!("config.storage.topic={group}-configs"),
        "value.converter.schemas.enable=false".to_owned(),
        "producer.client.dns.lookup=use_all_dns_ips".to_owned(),
        "config.providers.my-env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider"
            .to_owned(),
        "config.providers.dir_p.class=org.apache.kafka.common.config.provider.DirectoryConfigProvider"
            .to_owned(),
        format!("listeners=http://0.0.0.0:{port}"),
        "plugin.path=/opt/kafka/plugins".to_owned(),
    ] {
        assert!(
            properties.lines().any(|l| l == line),
            "{line} missing from:\n{properties}"
        );
    }
    assert!(!properties.contains("log4j"), "{properties}");
    for (logger, want) in [
        ("root", "INFO"),
        ("org.apache.kafka.connect.file", "DEBUG"),
        ("org.apache.kafka.clients", "WARN"),
        ("org.reflections", "ERROR"),
    ] {
        let (_, body) = container
            .worker
            .call("GET", &format!("/admin/loggers/{logger}"), None);
        assert_eq!(body["level"], want, "{logger}");
    }
    assert!(!properties.contains("not a worker key"), "{properties}");
    // The worker joined its group: a connector's config is stored and its task copies a file.
    let topic = unique("cp-topic");
    let (code, body) = container.worker.call(
        "PUT",
        "/connectors/cp-file/config",
        Some(&format!(
            r#"{{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/etc/debian_version","topic":"{topic}"}}"#
        )),
    );
    assert_eq!(code, 201, "{body}");
    wait_until("the container's worker copies a file", SLOW, || {
        topic_records(&topic) == 1
    });
    assert!(topic_records(&format!("{group}-configs")) > 0);
}

#[test]
fn confluent_style_start_without_a_required_variable_names_it() {
    let mut env = confluent_env(&unique("cp-missing"), port());
    env.retain(|(k, _)| k != "CONNECT_GROUP_ID");
    let mut args = vec!["run".to_owned(), "--rm".to_owned()];
    for (k, v) in env {
        args.push("-e".to_owned());
        args.push(format!("{k}={v}"));
    }
    args.push(image());
    let out = Command::new(root().join("scripts/image"))
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("CONNECT_GROUP_ID is required."),
        "{out:?}"
    );
}

#[test]
fn the_image_runs_as_a_non_root_user_with_strimzi_s_paths() {
    let out = Command::new("podman")
        .args(["image", "inspect", "--format"])
        .arg("{{.Config.User}} {{.Config.WorkingDir}} {{json .Config.Cmd}}")
        .arg(image())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        r#"1001 /opt/kafka ["/etc/confluent/docker/run"]"#
    );
    let out = Command::new(root().join("scripts/image"))
        .args(["run", "--rm", "--entrypoint", "/bin/sh", &image(), "-c"])
        .arg("test -x /opt/kafka/kafka_connect_run.sh && test -d /opt/kafka/plugins && test -w /opt/kafka/plugins && test -x /usr/bin/tini && /opt/java/bin/java -version")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("openjdk version \"17"),
        "{out:?}"
    );
}

fn helm_template(sets: &[&str]) -> Vec<serde_yaml::Value> {
    let helm = env_var("FERRY_HELM");
    let mut command = Command::new(helm);
    command
        .args(["template", "connect"])
        .arg(root().join("deploy/helm/ferry"));
    for set in sets {
        command.args(["--set", set]);
    }
    let out = command.output().unwrap();
    assert!(out.status.success(), "helm template: {out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    text.split("\n---")
        .filter_map(|doc| serde_yaml::from_str::<serde_yaml::Value>(doc).ok())
        .filter(|doc| doc.get("kind").is_some())
        .collect()
}

fn kind<'a>(docs: &'a [serde_yaml::Value], kind: &str) -> &'a serde_yaml::Value {
    docs.iter()
        .find(|d| d["kind"].as_str() == Some(kind))
        .unwrap_or_else(|| panic!("no {kind} in {docs:?}"))
}

#[test]
fn the_helm_chart_renders_a_cluster_whose_worker_config_runs() {
    let (port, metrics_port) = (port(), port());
    let group = unique("helm");
    let docs = helm_template(&[
        &format!("bootstrapServers={}", bootstrap()),
        &format!("groupId={group}"),
        &format!("storageTopics.config={group}-configs"),
        &format!("storageTopics.offset={group}-offsets"),
        &format!("storageTopics.status={group}-status"),
        "storageTopics.replicationFactor=1",
        &format!("rest.port={port}"),
        &format!("metrics.port={metrics_port}"),
        "image.repository=registry.example/ferry",
        "image.tag=1.2.3",
        "taskShutdownGracefulTimeoutMs=20000",
    ]);
    let deployment = kind(&docs, "Deployment");
    let pod = &deployment["spec"]["template"]["spec"];
    assert_eq!(deployment["spec"]["replicas"].as_i64(), Some(3));
    assert_eq!(pod["securityContext"]["runAsNonRoot"].as_bool(), Some(true));
    assert_eq!(pod["securityContext"]["runAsUser"].as_i64(), Some(1001));
    assert_eq!(pod["terminationGracePeriodSeconds"].as_i64(), Some(50));
    let container = &pod["containers"][0];
    assert_eq!(
        container["image"].as_str(),
        Some("registry.example/ferry:1.2.3")
    );
    for probe in ["livenessProbe", "readinessProbe"] {
        assert_eq!(
            container[probe]["httpGet"]["path"].as_str(),
            Some("/health")
        );
        assert_eq!(
            container[probe]["httpGet"]["port"].as_str(),
            Some("rest-api")
        );
    }
    let ports: Vec<(String, i64)> = container["ports"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["containerPort"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ports,
        vec![
            ("rest-api".to_owned(), port as i64),
            ("tcp-prometheus".to_owned(), metrics_port as i64)
        ]
    );
    let service = kind(&docs, "Service");
    assert_eq!(service["spec"]["ports"].as_sequence().unwrap().len(), 2);

    // The ConfigMap's worker config, run as the pod would run it (POD_IP from the downward API).
    let config_map = kind(&docs, "ConfigMap");
    let properties = config_map["data"]["connect-distributed.properties"]
        .as_str()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("connect-distributed.properties");
    write_file(
        &file,
        &properties.replace("http://0.0.0.0:", "http://127.0.0.1:"),
    );
    let input = dir.path().join("in.txt");
    write_file(&input, &numbered_lines(0, 10));
    let worker = Ferry::distributed_with_env(dir.path(), port, &file, &[("POD_IP", "127.0.0.1")]);
    let topic = unique("helm-topic");
    let (code, body) = worker.call(
        "PUT",
        "/connectors/helm-file/config",
        Some(&format!(
            r#"{{"connector.class":"FileStreamSource","file":"{}","topic":"{topic}"}}"#,
            input.display()
        )),
    );
    assert_eq!(code, 201, "{body}");
    wait_until("the chart's worker copies the file", SLOW, || {
        topic_records(&topic) == 10
    });
    wait_until(
        "the chart's worker advertises its pod address",
        SLOW,
        || {
            worker.status("helm-file")["connector"]["worker_id"]
                == format!("127.0.0.1:{port}").as_str()
        },
    );
    let text = scrape(metrics_port);
    assert_eq!(
        metric(&text, "kafka_connect_worker_connector_count", &[]),
        Some(1.0),
        "{text}"
    );
    worker.stop();

    // Metrics off: no port, no annotation.
    let docs = helm_template(&["metrics.enabled=false"]);
    let deployment = kind(&docs, "Deployment");
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["ports"]
            .as_sequence()
            .unwrap()
            .len(),
        1
    );
    assert!(
        !kind(&docs, "ConfigMap")["data"]["connect-distributed.properties"]
            .as_str()
            .unwrap()
            .contains("ferry.metrics.listeners")
    );
}
