//! The workers of a profile: Java Connect through `scripts/java-connect`, Ferry through `ferry`,
//! standalone (one of each) or distributed (a cluster of three of each), with the same worker
//! properties apart from ports, files and internal topics.

use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use crate::template::System;

/// Worker profiles: the properties each adds to the common ones. A scenario names its profile.
pub const PROFILES: &[(&str, &str)] = &[
    ("default", ""),
    // KIP-558 with tracking switched off.
    ("tracking-off", "topic.tracking.enable=false\n"),
    // The repository's Java test plugin on plugin.path: Java Connect loads it, Ferry runs it in
    // its plugin host.
    ("test-plugin", "plugin.path={test_plugin_path}\n"),
    // Prometheus metrics: the Java worker runs the JMX exporter agent (see `metrics_agent_opts`),
    // Ferry serves GET /metrics on its REST port anyway.
    (METRICS_PROFILE, ""),
    // Three distributed workers per system; scenarios talk to a follower (see `members`).
    (DISTRIBUTED_PROFILE, ""),
];

/// The profile whose workers form a cluster of [`DISTRIBUTED_MEMBERS`] distributed workers.
pub const DISTRIBUTED_PROFILE: &str = "distributed";
pub const DISTRIBUTED_MEMBERS: usize = 3;

/// How many workers of each system a profile runs.
pub fn members(profile: &str) -> usize {
    if profile == DISTRIBUTED_PROFILE {
        DISTRIBUTED_MEMBERS
    } else {
        1
    }
}

/// The profile whose workers both serve Prometheus metrics (`metrics` steps need it).
pub const METRICS_PROFILE: &str = "metrics";

/// The Prometheus JMX exporter agent the Java worker runs: the renderer Strimzi's rules
/// (`metrics/jmx-exporter-connect.yml`) are written for.
const JMX_EXPORTER_VERSION: &str = "1.0.1";

/// Where `scripts/plugin-host test-plugin` leaves the test plugin's plugin.path directory.
pub const TEST_PLUGIN_PATH_ENV: &str = "FERRY_TEST_PLUGIN_PATH";

/// Where the workers come from and what they talk to.
#[derive(Debug, Clone)]
pub struct WorkerSetup {
    /// The workspace root (for `scripts/java-connect`).
    pub root: PathBuf,
    pub ferry_bin: PathBuf,
    pub bootstrap: String,
    /// The `plugin.path` holding the Java test plugin (`test-plugin` profile), from
    /// [`TEST_PLUGIN_PATH_ENV`].
    pub test_plugin_path: Option<PathBuf>,
}

impl WorkerSetup {
    /// The test plugin's directory as named by the environment, if it is.
    pub fn test_plugin_path_from_env() -> Option<PathBuf> {
        std::env::var_os(TEST_PLUGIN_PATH_ENV)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    }
}

/// A running worker.
pub struct Worker {
    pub system: System,
    pub profile: String,
    pub port: u16,
    /// Where `GET /metrics` answers: Java's JMX exporter agent (metrics profile only), Ferry's
    /// REST port.
    pub metrics_port: Option<u16>,
    pub dir: PathBuf,
    pub log: PathBuf,
    child: Option<Child>,
}

/// Where the suite's ports come from: below the kernel's ephemeral range (32768 and up), where
/// an outgoing connection could take a port the system chose between this check and the
/// worker's bind (a Java worker failed to start so once), and apart from the broker tests'
/// 20000-31999.
const PORTS: std::ops::Range<u16> = 12000..20000;

/// A port nothing listens on now, not handed out before in this run.
fn free_port() -> anyhow::Result<u16> {
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let span = PORTS.end - PORTS.start;
    let start = (std::process::id() % u32::from(span)) as u16;
    for _ in 0..span {
        let offset = (start + NEXT.fetch_add(1, Ordering::Relaxed) % span) % span;
        let candidate = PORTS.start + offset;
        if TcpListener::bind(("127.0.0.1", candidate)).is_ok() {
            return Ok(candidate);
        }
    }
    anyhow::bail!("no free port in {PORTS:?}")
}

/// The JMX exporter agent jar in the local Maven repository, fetched there with `mvn` when
/// absent (the suite needs no other Maven set-up than `scripts/java-connect` does).
fn jmx_exporter_agent() -> anyhow::Result<PathBuf> {
    let home = std::env::var_os("HOME")
        .context("HOME is not set: the JMX exporter agent is looked up in ~/.m2")?;
    let v = JMX_EXPORTER_VERSION;
    let jar = PathBuf::from(home)
        .join(".m2/repository/io/prometheus/jmx/jmx_prometheus_javaagent")
        .join(v)
        .join(format!("jmx_prometheus_javaagent-{v}.jar"));
    if !jar.is_file() {
        let artifact = format!("io.prometheus.jmx:jmx_prometheus_javaagent:{v}");
        let status = Command::new("mvn")
            .args(["-q", "-B", "-Dstyle.color=never", "dependency:get"])
            .arg(format!("-Dartifact={artifact}"))
            .arg("-Dtransitive=false")
            .stdin(Stdio::null())
            .status()
            .context("running mvn to fetch the JMX exporter agent (is Maven installed?)")?;
        if !status.success() {
            bail!("`mvn dependency:get -Dartifact={artifact}` failed ({status}): the metrics profile's Java worker needs that agent");
        }
        if !jar.is_file() {
            bail!(
                "mvn fetched {artifact}, but not to {} (another localRepository in settings.xml?)",
                jar.display()
            );
        }
    }
    Ok(jar)
}

/// `KAFKA_OPTS` (kept, then extended) that make the Java worker serve its metrics on
/// `127.0.0.1:port` through the JMX exporter agent with Strimzi's rules.
fn metrics_agent_opts(port: u16) -> anyhow::Result<String> {
    let jar = jmx_exporter_agent()?;
    let rules = crate::crate_dir().join("metrics/jmx-exporter-connect.yml");
    if !rules.is_file() {
        bail!("the JMX exporter rules {} are missing", rules.display());
    }
    let agent = format!(
        "-javaagent:{}=127.0.0.1:{port}:{}",
        jar.display(),
        rules.display()
    );
    // scripts/java-connect splits KAFKA_OPTS on whitespace.
    if agent.contains(char::is_whitespace) {
        bail!("the agent's paths must not contain whitespace: {agent}");
    }
    let existing = std::env::var("KAFKA_OPTS").unwrap_or_default();
    Ok(format!("{existing} {agent}").trim().to_owned())
}

/// The worker properties both systems get (plus the profile's); `cluster` names a distributed
/// worker's group.
pub fn worker_properties(
    setup: &WorkerSetup,
    dir: &Path,
    port: u16,
    profile: &str,
    cluster: &str,
) -> anyhow::Result<String> {
    let mut extra = PROFILES
        .iter()
        .find(|(p, _)| *p == profile)
        .map_or("", |(_, e)| e)
        .to_owned();
    if extra.contains("{test_plugin_path}") {
        let path = setup.test_plugin_path.as_ref().with_context(|| {
            format!("profile {profile} needs the Java test plugin: set {TEST_PLUGIN_PATH_ENV} to the directory `scripts/plugin-host test-plugin` prints")
        })?;
        extra = extra.replace("{test_plugin_path}", &path.display().to_string());
    }
    let bootstrap = &setup.bootstrap;
    let storage = if profile == DISTRIBUTED_PROFILE {
        // `cluster` names the group and its internal topics, one cluster per system and run.
        format!(
            "group.id={cluster}
config.storage.topic={cluster}-configs
offset.storage.topic={cluster}-offsets
status.storage.topic={cluster}-status
config.storage.replication.factor=1
offset.storage.replication.factor=1
status.storage.replication.factor=1
rest.advertised.host.name=127.0.0.1
rest.advertised.port={port}
"
        )
    } else {
        format!(
            "offset.storage.file.filename={}\n",
            dir.join("connect.offsets").display()
        )
    };
    Ok(format!(
        "bootstrap.servers={bootstrap}
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.storage.StringConverter
{storage}offset.flush.interval.ms=1000
listeners=http://127.0.0.1:{port}
{extra}"
    ))
}

impl Worker {
    /// Starts the worker in `dir` (created); [`Worker::wait_ready`] waits for its REST API.
    /// Distributed workers of the same `cluster` form one group.
    pub fn spawn(
        system: System,
        profile: &str,
        dir: &Path,
        setup: &WorkerSetup,
        cluster: &str,
    ) -> anyhow::Result<Worker> {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let port = free_port()?;
        let properties = dir.join("worker.properties");
        std::fs::write(
            &properties,
            worker_properties(setup, dir, port, profile, cluster)?,
        )?;
        let mode = if profile == DISTRIBUTED_PROFILE {
            "distributed"
        } else {
            "standalone"
        };
        let log = dir.join("worker.log");
        let out = File::create(&log)?;
        let err = out.try_clone()?;
        let mut metrics_port = None;
        let mut command = match system {
            System::Java => {
                let mut c = Command::new(setup.root.join("scripts/java-connect"));
                c.arg(mode)
                    .arg(&properties)
                    .env("CONNECT_LOG_FILE", dir.join("connect.log"))
                    .env("KAFKA_HEAP_OPTS", "-Xms128M -Xmx1G");
                if profile == METRICS_PROFILE {
                    // Two free ports asked for in a row can be the same one.
                    let mut agent_port = free_port()?;
                    while agent_port == port {
                        agent_port = free_port()?;
                    }
                    c.env("KAFKA_OPTS", metrics_agent_opts(agent_port)?);
                    metrics_port = Some(agent_port);
                }
                c
            }
            System::Ferry => {
                metrics_port = Some(port);
                let mut c = Command::new(&setup.ferry_bin);
                c.arg(mode)
                    .arg(&properties)
                    .env("RUST_LOG", "info")
                    .env("NO_COLOR", "1");
                c
            }
        };
        let child = command
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .with_context(|| format!("starting the {} worker", system.label()))?;
        Ok(Worker {
            system,
            profile: profile.to_owned(),
            port,
            metrics_port,
            dir: dir.to_owned(),
            log,
            child: Some(child),
        })
    }

    /// `127.0.0.1:port`: the worker id both systems report.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Waits until `GET /health` answers 200 (the worker has finished starting).
    pub fn wait_ready(&mut self, timeout: Duration) -> anyhow::Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(a) =
                crate::http::request(self.port, "GET", "/health", None, Duration::from_secs(5))
            {
                if a.status == 200 {
                    return Ok(());
                }
            }
            if let Some(child) = self.child.as_mut() {
                if let Some(status) = child.try_wait()? {
                    bail!(
                        "the {} worker ({}) exited with {status} before its REST API answered; {}:\n{}",
                        self.system.label(),
                        self.profile,
                        self.log.display(),
                        self.log_tail()
                    );
                }
            }
            if Instant::now() > deadline {
                bail!(
                    "the {} worker ({}) did not answer GET /health within {timeout:?}; {}:\n{}",
                    self.system.label(),
                    self.profile,
                    self.log.display(),
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }

    /// SIGTERM, then SIGKILL after a few seconds.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
