//! Helpers for tests that run the `ferry` binary against a real broker.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use std::collections::HashMap;

use ferry_kafka::admin::Admin;
use ferry_kafka::rdkafka::consumer::{BaseConsumer, Consumer};
use ferry_kafka::rdkafka::message::{Headers, Message};
use ferry_kafka::rdkafka::ClientConfig;

/// The broker address; a broker test without one fails loudly rather than passing.
pub fn bootstrap() -> String {
    std::env::var("KAFKA_BOOTSTRAP_SERVERS").unwrap_or_else(|_| {
        panic!("KAFKA_BOOTSTRAP_SERVERS is not set: start a broker with `scripts/kafka start` and export KAFKA_BOOTSTRAP_SERVERS=127.0.0.1:9092")
    })
}

/// A name unique to this test run.
pub fn unique(prefix: &str) -> String {
    static N: AtomicU16 = AtomicU16::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!(
        "{prefix}-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A REST port no other test of this run uses and nothing listens on now. The ports stay below
/// the kernel's ephemeral range (32768 and up), so no outgoing connection can take one between
/// this check and the worker's bind.
pub fn port() -> u16 {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let base = 20000 + (std::process::id() % 300) as u16 * 40;
    loop {
        let candidate = base + NEXT.fetch_add(1, Ordering::Relaxed) % 40;
        if std::net::TcpListener::bind(("127.0.0.1", candidate)).is_ok() {
            return candidate;
        }
    }
}

/// Polls `condition` every 100 ms until it holds or `timeout` passes; panics naming `what` on
/// timeout.
pub fn wait_until(what: &str, timeout: Duration, condition: impl FnMut() -> bool) {
    wait_until_every(what, timeout, Duration::from_millis(100), condition);
}

/// `wait_until` with looks `every` apart, for a condition that may hold only briefly.
pub fn wait_until_every(
    what: &str,
    timeout: Duration,
    every: Duration,
    mut condition: impl FnMut() -> bool,
) {
    let deadline = Instant::now() + timeout;
    while !condition() {
        assert!(
            Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}"
        );
        std::thread::sleep(every);
    }
}

pub fn write_file(path: &Path, contents: &str) {
    std::fs::write(path, contents).unwrap();
}

/// The complete lines of a file; a last line still being written (no newline yet) is left out,
/// so a reader racing the sink's buffered writes never sees half a line.
pub fn lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let complete = match text.rfind('\n') {
        Some(end) => &text[..=end],
        None => "",
    };
    complete.lines().map(str::to_owned).collect()
}

pub fn numbered_lines(from: usize, to: usize) -> String {
    let mut s = String::new();
    for i in from..to {
        s.push_str(&format!("line {i:07} of the ferry pipeline test, padded to about one hundred bytes ...........\n"));
    }
    s
}

/// A worker properties file for standalone mode.
pub fn worker_properties(dir: &Path, port: u16, flush_ms: u64) -> PathBuf {
    let path = dir.join("worker.properties");
    write_file(
        &path,
        &format!(
            "bootstrap.servers={}\nkey.converter=org.apache.kafka.connect.storage.StringConverter\nvalue.converter=org.apache.kafka.connect.storage.StringConverter\noffset.storage.file.filename={}\noffset.flush.interval.ms={flush_ms}\nlisteners=http://127.0.0.1:{port}\n",
            bootstrap(),
            dir.join("connect.offsets").display()
        ),
    );
    path
}

/// A worker properties file for distributed mode; workers with the same `cluster` form a group
/// over the same internal topics.
pub fn distributed_properties(dir: &Path, port: u16, cluster: &str, extra: &str) -> PathBuf {
    let path = dir.join(format!("worker-{port}.properties"));
    write_file(
        &path,
        &format!(
            "bootstrap.servers={}
group.id={cluster}
config.storage.topic={cluster}-configs
offset.storage.topic={cluster}-offsets
status.storage.topic={cluster}-status
config.storage.replication.factor=1
offset.storage.replication.factor=1
status.storage.replication.factor=1
offset.storage.partitions=5
status.storage.partitions=3
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
offset.flush.interval.ms=500
listeners=http://127.0.0.1:{port}
rest.advertised.host.name=127.0.0.1
rest.advertised.port={port}
session.timeout.ms=6000
heartbeat.interval.ms=1000
scheduled.rebalance.max.delay.ms=3000
{extra}",
            bootstrap(),
        ),
    );
    path
}

/// A `plugin.path` in `dir` holding Apache Kafka's connect-file jar (scripts/test fetches it
/// from Maven Central and names it in FERRY_CONNECT_FILE_JAR).
pub fn connect_file_plugin_path(dir: &Path) -> PathBuf {
    let jar = std::env::var("FERRY_CONNECT_FILE_JAR").expect(
        "FERRY_CONNECT_FILE_JAR must name Apache Kafka's connect-file jar (scripts/test sets it)",
    );
    let plugins = dir.join("plugins/connect-file");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::copy(&jar, plugins.join("connect-file.jar")).unwrap();
    dir.join("plugins")
}

/// Java's basic auth set-up in `dir`: a credentials file with `users` (`user=password`
/// lines) and the JAAS file naming it; answers the `KAFKA_OPTS` that points at the JAAS file.
pub fn basic_auth_files(dir: &Path, users: &str) -> String {
    let credentials = dir.join("connect.password");
    write_file(&credentials, users);
    let jaas = dir.join("connect_jaas.conf");
    write_file(
        &jaas,
        &format!(
            "KafkaConnect {{\n  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n  file=\"{}\";\n}};\n",
            credentials.display()
        ),
    );
    format!("-Djava.security.auth.login.config={}", jaas.display())
}

/// `Authorization: Basic …` for `user:password`.
pub fn basic(user_and_password: &str) -> String {
    use base64::Engine;
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(user_and_password)
    )
}

pub fn connector_file(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(format!("{name}.properties"));
    write_file(&path, &format!("name={name}\n{body}"));
    path
}

/// A running `ferry standalone` process.
pub struct Ferry {
    pub child: Child,
    pub port: u16,
    pub log: PathBuf,
}

impl Ferry {
    pub fn start(dir: &Path, port: u16, worker: &Path, connectors: &[PathBuf]) -> Ferry {
        Self::launch("standalone", dir, port, worker, connectors)
    }

    /// `ferry distributed worker.properties`, once its REST API answers.
    pub fn distributed(dir: &Path, port: u16, worker: &Path) -> Ferry {
        Self::launch("distributed", dir, port, worker, &[])
    }

    /// `ferry distributed` with extra environment variables.
    pub fn distributed_with_env(
        dir: &Path,
        port: u16,
        worker: &Path,
        env: &[(&str, &str)],
    ) -> Ferry {
        Self::launch_with("distributed", dir, port, worker, &[], env)
    }

    /// `ferry standalone` with extra environment variables (`KAFKA_OPTS`, …).
    pub fn start_with_env(
        dir: &Path,
        port: u16,
        worker: &Path,
        connectors: &[PathBuf],
        env: &[(&str, &str)],
    ) -> Ferry {
        Self::launch_with("standalone", dir, port, worker, connectors, env)
    }

    fn launch(mode: &str, dir: &Path, port: u16, worker: &Path, connectors: &[PathBuf]) -> Ferry {
        Self::launch_with(mode, dir, port, worker, connectors, &[])
    }

    fn launch_with(
        mode: &str,
        dir: &Path,
        port: u16,
        worker: &Path,
        connectors: &[PathBuf],
        env: &[(&str, &str)],
    ) -> Ferry {
        let mut args = vec![mode.as_ref(), worker.as_os_str()];
        args.extend(connectors.iter().map(|c| c.as_os_str()));
        let ferry = Self::spawn(dir, port, &args, env);
        // Generous: on a loaded 2-core runner, workers whose plugin host scans Debezium's and
        // MirrorMaker's jars while other tests start JVMs have taken over 60 s to answer.
        let started = Instant::now();
        let deadline = started + Duration::from_secs(180);
        while ferry.get("/").is_none() {
            assert!(
                Instant::now() < deadline,
                "timed out after 180 s waiting for the REST API on port {port}; log:\n{}",
                ferry.log_text()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        if started.elapsed() > Duration::from_secs(30) {
            eprintln!(
                "slow start: {mode} worker on port {port} answered after {:?}",
                started.elapsed()
            );
        }
        ferry
    }

    /// `ferry <args…>`, its stderr (the log) in a file of `dir`.
    fn spawn(dir: &Path, port: u16, args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> Ferry {
        let log = dir.join(format!("ferry-{}.log", unique("run")));
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_ferry"))
            .args(args)
            .current_dir(dir)
            .envs(env.iter().copied())
            .env("RUST_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(out)
            .spawn()
            .unwrap();
        Ferry { child, port, log }
    }

    /// `ferry mirror-maker <mm2.properties> <extra…>` (dedicated MirrorMaker 2, no REST API),
    /// once its log says it started.
    pub fn mirror_maker(dir: &Path, mm2: &Path, extra: &[&str]) -> Ferry {
        let mut args = vec!["mirror-maker".as_ref(), mm2.as_os_str()];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        let ferry = Self::spawn(dir, 0, &args, &[]);
        wait_until(
            "ferry mirror-maker started",
            Duration::from_secs(180),
            || ferry.log_text().contains("Kafka MirrorMaker started"),
        );
        ferry
    }

    /// A GET request; `None` when the worker does not answer.
    pub fn get(&self, path: &str) -> Option<(u16, serde_json::Value)> {
        self.request("GET", path, None)
    }

    /// Any request with an optional JSON body; `None` when the worker does not answer.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> Option<(u16, serde_json::Value)> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .ok()?;
        let body = body.unwrap_or("");
        write!(
            stream,
            "{method} {path} HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        let (head, body) = response.split_once("\r\n\r\n")?;
        let code = head.split_whitespace().nth(1)?.parse().ok()?;
        Some((
            code,
            serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
        ))
    }

    /// A request with extra headers; the status, the response head and the body as text.
    pub fn raw(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, String, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let extra: String = headers
            .iter()
            .map(|(k, v)| format!("{k}: {v}\r\n"))
            .collect();
        write!(
            stream,
            "{method} {path} HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
        let code = head
            .split_whitespace()
            .nth(1)
            .unwrap_or("0")
            .parse()
            .unwrap_or(0);
        (code, head.to_owned(), body.to_owned())
    }

    /// A request carrying KIP-507 signature headers.
    pub fn signed_call(
        &self,
        method: &str,
        path: &str,
        body: &str,
        signature: &str,
    ) -> (u16, serde_json::Value) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\nX-Connect-Authorization: {signature}\r\nX-Connect-Request-Signature-Algorithm: HmacSHA256\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        let code = head.split_whitespace().nth(1).unwrap().parse().unwrap();
        (
            code,
            serde_json::from_str(body).unwrap_or(serde_json::Value::Null),
        )
    }

    /// A request that must be answered.
    pub fn call(&self, method: &str, path: &str, body: Option<&str>) -> (u16, serde_json::Value) {
        self.request(method, path, body)
            .unwrap_or_else(|| panic!("no answer to {method} {path}; log: {}", self.log_text()))
    }

    /// The sorted topics `GET /connectors/{c}/topics` reports.
    pub fn topics(&self, connector: &str) -> Vec<String> {
        let (_, body) = self.call("GET", &format!("/connectors/{connector}/topics"), None);
        let mut topics: Vec<String> = body[connector]["topics"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        topics.sort();
        topics
    }

    pub fn task_state(&self, connector: &str, task: usize) -> Option<String> {
        let (_, status) = self.get(&format!("/connectors/{connector}/status"))?;
        status["tasks"]
            .as_array()?
            .iter()
            .find(|t| t["id"] == task)?["state"]
            .as_str()
            .map(str::to_owned)
    }

    pub fn status(&self, connector: &str) -> serde_json::Value {
        self.get(&format!("/connectors/{connector}/status"))
            .map(|(_, v)| v)
            .unwrap_or_default()
    }

    /// SIGTERM and wait: the graceful stop path.
    pub fn stop(mut self) {
        Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() >= deadline {
                // Where it hangs: the log's end and, where gdb is installed, every thread's stack.
                let log = self.log_text();
                let tail: Vec<&str> = log.lines().rev().take(80).collect();
                let stacks = Command::new("gdb")
                    .args(["-p", &self.child.id().to_string(), "-batch"])
                    .args(["-ex", "thread apply all bt 30"])
                    .output()
                    .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
                    .unwrap_or_else(|e| format!("(no stacks: gdb: {e})"));
                panic!(
                    "ferry did not stop within 60 s of SIGTERM; the end of its log:\n{}\n\
                     its threads:\n{stacks}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        assert!(
            status.success(),
            "ferry exited with {status}; log: {}",
            self.log_text()
        );
    }

    /// SIGTERM and wait, whatever the exit status (a JVM ends with 143). A Java worker that has
    /// not stopped after a minute is killed: a JVM's own shutdown hang is not what these tests
    /// are about, and it is reported rather than failing them.
    pub fn terminate(mut self) {
        Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                eprintln!(
                    "process {} did not stop within 60 s of SIGTERM; killing it. Its log ends:\n{}",
                    self.child.id(),
                    self.log_text()
                        .lines()
                        .rev()
                        .take(40)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect::<Vec<_>>()
                        .join("\n")
                );
                let _ = self.child.kill();
                let _ = self.child.wait();
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGKILL: the crash path.
    pub fn kill9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// How often a task has reported RUNNING (each start does), read from the worker's log.
    pub fn task_starts(&self, connector: &str, task: usize) -> usize {
        let needle =
            format!("connector={connector} task={task}}}: Task state changed state=RUNNING");
        self.log_text().matches(&needle).count()
    }

    /// How often a connector object has been started, read from the worker's log.
    pub fn connector_starts(&self, connector: &str) -> usize {
        let needle = format!("connector{{connector={connector}}}: Connector started");
        self.log_text().matches(&needle).count()
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Ferry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A failed test shows the end of the worker's log, which its temporary directory loses.
        if std::thread::panicking() {
            let log = self.log_text();
            let lines: Vec<&str> = log.lines().collect();
            let tail = &lines[lines.len().saturating_sub(200)..];
            // The whole log is kept under the temporary directory, for what the tail misses.
            let kept = std::env::temp_dir().join(format!("ferry-failed-{}.log", unique("test")));
            let _ = std::fs::write(&kept, &log);
            eprintln!(
                "--- the last lines of {} (all of it in {}) ---\n{}",
                self.log.display(),
                kept.display(),
                tail.join("\n")
            );
        }
    }
}

/// `scripts/java-connect distributed`, once its REST API reports it healthy.
pub fn java_distributed_worker(dir: &Path, port: u16, props: &Path) -> Ferry {
    java_worker("distributed", dir, port, props, &[], &[])
}

/// `scripts/java-connect standalone` with connector files, once its REST API reports it healthy.
pub fn java_standalone_worker(
    dir: &Path,
    port: u16,
    props: &Path,
    connectors: &[PathBuf],
) -> Ferry {
    java_worker("standalone", dir, port, props, connectors, &[])
}

/// `java_standalone_worker` with the Prometheus JMX exporter agent (`scripts/java-connect
/// jmx-exporter`) serving its MBeans under the exporter `rules` on `metrics_port`.
pub fn java_standalone_worker_with_exporter(
    dir: &Path,
    port: u16,
    props: &Path,
    connectors: &[PathBuf],
    rules: &Path,
    metrics_port: u16,
) -> Ferry {
    let agent =
        Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/java-connect"))
            .arg("jmx-exporter")
            .output()
            .expect("scripts/java-connect jmx-exporter runs");
    assert!(
        agent.status.success(),
        "scripts/java-connect jmx-exporter: {}",
        String::from_utf8_lossy(&agent.stderr)
    );
    let jar = String::from_utf8(agent.stdout).unwrap();
    let opts = format!(
        "-javaagent:{}=127.0.0.1:{metrics_port}:{}",
        jar.trim(),
        rules.display()
    );
    java_worker(
        "standalone",
        dir,
        port,
        props,
        connectors,
        &[("KAFKA_OPTS", opts.as_str())],
    )
}

fn java_worker(
    mode: &str,
    dir: &Path,
    port: u16,
    props: &Path,
    connectors: &[PathBuf],
    env: &[(&str, &str)],
) -> Ferry {
    let log = dir.join(format!("java-{port}-{}.log", unique("run")));
    let out = std::fs::File::create(dir.join(format!("java-{port}.out"))).unwrap();
    let child =
        Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/java-connect"))
            .arg(mode)
            .arg(props)
            .args(connectors)
            .current_dir(dir)
            .env("CONNECT_LOG_FILE", &log)
            .env("KAFKA_HEAP_OPTS", "-Xms128M -Xmx1G")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(out)
            .spawn()
            .expect("scripts/java-connect runs");
    let java = Ferry { child, port, log };
    wait_until(
        "Java Connect to be healthy",
        Duration::from_secs(180),
        || java.get("/health").is_some_and(|(code, _)| code == 200),
    );
    java
}

/// Runs `ferry standalone` expecting it to fail at start-up; returns its stderr.
pub fn start_fails(dir: &Path, worker: &Path, connectors: &[PathBuf]) -> String {
    start_fails_in("standalone", dir, worker, connectors)
}

/// Runs `ferry <mode>` expecting it to fail at start-up; returns its stderr.
pub fn start_fails_in(mode: &str, dir: &Path, worker: &Path, connectors: &[PathBuf]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ferry"))
        .arg(mode)
        .arg(worker)
        .args(connectors)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!out.status.success(), "ferry should have failed to start");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Sum of a topic's end offsets: how many records it holds.
pub fn topic_records(topic: &str) -> i64 {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap());
    let admin = Admin::new(&config).unwrap();
    admin
        .end_offsets(topic, Duration::from_secs(10))
        .map(|v| v.iter().sum())
        .unwrap_or(0)
}

/// Creates a topic with `partitions` partitions and replication factor 1.
pub fn create_topic(topic: &str, partitions: i32) {
    create_topic_with(topic, partitions, &[]);
}

/// Creates a topic with `partitions` partitions, replication factor 1 and topic `configs`.
pub fn create_topic_with(topic: &str, partitions: i32, configs: &[(&str, &str)]) {
    let mut config = ClientConfig::new();
    config.set("bootstrap.servers", bootstrap());
    let admin = Admin::new(&config).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(
        admin.create_topic(&ferry_kafka::admin::TopicSpec {
            name: topic.to_owned(),
            partitions,
            replication_factor: 1,
            configs: configs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        }),
    )
    .unwrap();
}

/// Every record of a topic, with its headers as strings.
pub fn read_all(topic: &str, expected: usize) -> Vec<(Option<String>, HashMap<String, String>)> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("group.id", unique("reader"))
        .set("auto.offset.reset", "earliest")
        .create()
        .unwrap();
    consumer.subscribe(&[topic]).unwrap();
    let mut out = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while out.len() < expected && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            let headers = m
                .headers()
                .map(|h| {
                    h.iter()
                        .map(|h| {
                            (
                                h.key.to_owned(),
                                String::from_utf8_lossy(h.value.unwrap_or_default()).into_owned(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            out.push((
                m.payload().map(|p| String::from_utf8_lossy(p).into_owned()),
                headers,
            ));
        }
    }
    out
}

/// `GET /metrics` of a worker (or of a metrics listener on `port`), as text.
pub fn scrape(port: u16) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(stream, "GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    assert!(
        head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200"),
        "{head}"
    );
    body.to_owned()
}

/// The value of the sample `name` whose labels include every pair of `labels`.
pub fn metric(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (sample, label_text) = match series.split_once('{') {
                Some((n, rest)) => (n, rest.trim_end_matches('}')),
                None => (series, ""),
            };
            let all = labels
                .iter()
                .all(|(k, v)| label_text.contains(&format!("{k}=\"{v}\"")));
            (sample == name && all).then(|| value.parse().ok())?
        })
}

/// The status of `GET path` on `port` (any listener).
pub fn http_status(port: u16, path: &str) -> u16 {
    http_call(port, "GET", path)
}

/// The status of a bodiless `method path` on `port`; 0 when the worker does not answer.
pub fn http_call(port: u16, method: &str, path: &str) -> u16 {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return 0;
    };
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.0\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// Every committed record of `topic` on `bootstrap` as (partition, key, value), in the order
/// read: reads until `expected` have come and then a few quiet seconds more, so records beyond
/// them (duplicates) show too.
pub fn read_committed_from(
    bootstrap: &str,
    topic: &str,
    expected: usize,
) -> Vec<(i32, String, String)> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", unique("eos-judge"))
        .set("auto.offset.reset", "earliest")
        .set("isolation.level", "read_committed")
        .create()
        .unwrap();
    consumer.subscribe(&[topic]).unwrap();
    let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut quiet_since = None;
    while Instant::now() < deadline {
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                got.push((m.partition(), text(m.key()), text(m.payload())));
                quiet_since = None;
            }
            _ if got.len() >= expected => {
                let since = *quiet_since.get_or_insert_with(Instant::now);
                if since.elapsed() > Duration::from_secs(3) {
                    break;
                }
            }
            _ => {}
        }
    }
    got
}
