//! Translation of Java Kafka client settings into librdkafka settings.
//!
//! Kafka Connect configs carry settings written for the Java clients: top-level ones such as
//! `bootstrap.servers` or `security.protocol`, and prefixed ones for connector clients
//! (`producer.*`, `consumer.*`, `admin.*` in the worker, `*.override.*` in connector configs).
//! Ferry's clients are librdkafka, whose names and value formats differ in places, so every
//! setting goes through the explicit table `RULES`. A setting is translated, deliberately
//! ignored, or reported: nothing is passed through because its name happens to match, because
//! an identical name does not guarantee identical meaning (Java's `metadata.max.age.ms` is
//! librdkafka's `topic.metadata.refresh.interval.ms`, not librdkafka's `metadata.max.age.ms`).
//!
//! Problems come back as warnings in [`Translated::warnings`] rather than being logged here, so
//! the caller can attach them to the worker or connector they belong to. Warnings name keys and
//! may quote non-secret values (numbers, enum names); they never contain credentials.
//!
//! # Value policy
//!
//! Values are trimmed, as Java's `ConfigDef` trims them. A value that is valid for Java is
//! translated to the nearest librdkafka value (clamped into librdkafka's range, with a warning
//! when that changes it). A value that cannot be translated is passed through unchanged with a
//! warning, so librdkafka rejects it when the client is created instead of Ferry silently
//! substituting a default.
//!
//! # Escape hatch
//!
//! A key starting with `librdkafka.` is passed through unchanged with the prefix removed, for
//! librdkafka-only settings (`librdkafka.queue.buffering.max.messages`, `librdkafka.debug`, ...)
//! or to replace a translation. These entries are applied after translation and therefore win;
//! replacing a translated value produces a warning. They are not checked against the role.
//! Connect prefixes still apply first: `producer.override.librdkafka.linger.ms`.
//!
//! # Defaults
//!
//! Only one Java default is reproduced: producers get `partitioner=murmur2_random` unless a
//! partitioner is configured, because librdkafka's own default (`consistent_random`, CRC32)
//! would put keyed records on different partitions than Java's murmur2 partitioner, breaking
//! key ordering for topics shared with Java producers. Other default differences are left to
//! the caller (`client_config` sets Java's reconnection backoff).

use std::collections::HashMap;

/// The kind of Kafka client the settings are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientRole {
    Producer,
    Consumer,
    Admin,
}

impl ClientRole {
    fn bit(self) -> u8 {
        match self {
            ClientRole::Producer => P,
            ClientRole::Consumer => C,
            ClientRole::Admin => A,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            ClientRole::Producer => "a producer",
            ClientRole::Consumer => "a consumer",
            ClientRole::Admin => "an admin",
        }
    }
}

/// librdkafka settings translated from Java client settings, with everything that could not be
/// translated faithfully explained in `warnings`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translated {
    /// librdkafka property names and values, each name at most once.
    pub properties: Vec<(String, String)>,
    /// Human-readable explanations of settings that were ignored, approximated or passed
    /// through unvalidated. Never contains secret values.
    pub warnings: Vec<String>,
    /// Settings no client can be built with (a key store that cannot be opened). Never
    /// contains secret values.
    pub errors: Vec<String>,
}

/// Translates Java client settings (already stripped of any prefix) into librdkafka settings
/// for `role`.
///
/// When a key occurs more than once the last occurrence wins, as with Java `Properties`.
pub fn translate(role: ClientRole, java: &[(String, String)]) -> Translated {
    let mut last_index = HashMap::new();
    for (index, (key, _)) in java.iter().enumerate() {
        last_index.insert(key.as_str(), index);
    }

    let mut cx = Cx {
        role,
        java: java.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
        properties: Vec::new(),
        warnings: Vec::new(),
        errors: Vec::new(),
    };

    let mut escaped = Vec::new();
    for (index, (key, value)) in java.iter().enumerate() {
        if last_index.get(key.as_str()) != Some(&index) {
            continue;
        }
        match key.strip_prefix(ESCAPE_PREFIX) {
            Some(name) => escaped.push((key.as_str(), name, value.as_str())),
            None => apply(&mut cx, key, value.trim()),
        }
    }

    for (key, name, value) in escaped {
        if name.is_empty() {
            cx.warn(format!(
                "setting '{key}' names no librdkafka property; ignored"
            ));
            continue;
        }
        if cx.has(name) {
            cx.warn(format!(
                "setting '{key}' replaces the value of '{name}' translated from Java settings"
            ));
        }
        cx.set(name, value);
    }

    if role == ClientRole::Producer && !cx.has("partitioner") {
        cx.set("partitioner", JAVA_DEFAULT_PARTITIONER);
    }

    Translated {
        properties: cx.properties,
        warnings: cx.warnings,
        errors: cx.errors,
    }
}

/// Prefix of settings handed to librdkafka untranslated.
const ESCAPE_PREFIX: &str = "librdkafka.";

/// librdkafka's equivalent of Java's built-in partitioning: murmur2 of the key, so keyed
/// records land where a Java producer puts them, and spread (sticky) placement for null keys.
const JAVA_DEFAULT_PARTITIONER: &str = "murmur2_random";

const P: u8 = 1;
const C: u8 = 2;
const A: u8 = 4;
const ALL: u8 = P | C | A;

const I32_MAX: i64 = i32::MAX as i64;

struct Rule {
    /// Java key; a trailing `*` makes it a prefix pattern.
    java: &'static str,
    /// Roles whose Java client accepts the key.
    roles: u8,
    action: Action,
}

#[derive(Clone, Copy)]
enum Action {
    /// Set one librdkafka property from the value.
    Map(&'static str, Conv),
    /// Needs other settings or writes several properties.
    Custom(fn(&mut Cx<'_>, &str, &str)),
    /// Ignored without a warning; each use says why.
    Silent,
    /// Ignored with a warning; the text says why there is no equivalent.
    Unsupported(&'static str),
}

#[derive(Clone, Copy)]
enum Conv {
    Verbatim,
    Bool,
    /// librdkafka's accepted range; Java's ranges are usually wider.
    Int {
        min: i64,
        max: i64,
    },
    /// Comma-separated list; Java trims the elements, librdkafka does not everywhere.
    List,
    /// Enum that Java matches case-insensitively; librdkafka takes the lowercase form.
    Lower(&'static [&'static str]),
    /// Enum whose values are case-sensitive on both sides.
    Exact(&'static [&'static str]),
    /// Java uses -1 for "operating system default", librdkafka uses 0.
    SocketBuffer,
    /// Java bytes to librdkafka kilobytes.
    Kbytes,
    /// Java's `delivery.timeout.ms` to librdkafka's `message.timeout.ms`.
    DeliveryTimeout,
    /// Java's `none` is librdkafka's `error`.
    OffsetReset,
    /// Java disables host name verification with an empty value, librdkafka with `none`.
    EndpointIdentification,
    /// Java assignor class names to librdkafka assignor names.
    Assignors,
}

const fn map(java: &'static str, roles: u8, target: &'static str, conv: Conv) -> Rule {
    Rule {
        java,
        roles,
        action: Action::Map(target, conv),
    }
}

const fn same(java: &'static str, roles: u8, conv: Conv) -> Rule {
    map(java, roles, java, conv)
}

const fn custom(java: &'static str, roles: u8, handler: fn(&mut Cx<'_>, &str, &str)) -> Rule {
    Rule {
        java,
        roles,
        action: Action::Custom(handler),
    }
}

const fn silent(java: &'static str, roles: u8) -> Rule {
    Rule {
        java,
        roles,
        action: Action::Silent,
    }
}

const fn unsupported(java: &'static str, roles: u8, why: &'static str) -> Rule {
    Rule {
        java,
        roles,
        action: Action::Unsupported(why),
    }
}

const fn int(min: i64, max: i64) -> Conv {
    Conv::Int { min, max }
}

use Conv::{Bool, List, Lower, Verbatim};

/// Ranges are librdkafka's, from its CONFIGURATION.md (librdkafka 2.x).
#[rustfmt::skip]
const RULES: &[Rule] = &[
    // Connection and identity.
    same("bootstrap.servers", ALL, List),
    same("client.id", ALL, Verbatim),
    same(
        "client.dns.lookup",
        ALL,
        Lower(&["use_all_dns_ips", "resolve_canonical_bootstrap_servers_only"]),
    ),
    // Java's setting is the forced refresh period; librdkafka's `metadata.max.age.ms` is a cache
    // expiry that it derives from the refresh interval.
    map("metadata.max.age.ms", ALL, "topic.metadata.refresh.interval.ms", int(1, 3_600_000)),
    same("metadata.recovery.strategy", ALL, Lower(&["none", "rebootstrap"])),
    same("metadata.recovery.rebootstrap.trigger.ms", ALL, int(0, I32_MAX)),
    // Kafka 4.4's clients: Connect forces synchronous bootstrap resolution (0), which is what
    // librdkafka does; the misrouted-connection check has no librdkafka counterpart.
    custom("bootstrap.resolve.timeout.ms", ALL, bootstrap_resolve_timeout),
    unsupported(
        "metadata.cluster.check.enable",
        ALL,
        "librdkafka does not send the cluster and node ids that let a Kafka 4.4 broker refuse a misrouted connection",
    ),
    same("reconnect.backoff.ms", ALL, int(0, 3_600_000)),
    same("reconnect.backoff.max.ms", ALL, int(0, 3_600_000)),
    same("retry.backoff.ms", ALL, int(1, 300_000)),
    same("retry.backoff.max.ms", ALL, int(1, 300_000)),
    same("connections.max.idle.ms", ALL, int(0, I32_MAX)),
    same("socket.connection.setup.timeout.ms", ALL, int(1000, I32_MAX)),
    unsupported(
        "socket.connection.setup.timeout.max.ms",
        ALL,
        "librdkafka's connection setup timeout does not grow between attempts",
    ),
    map("receive.buffer.bytes", ALL, "socket.receive.buffer.bytes", Conv::SocketBuffer),
    map("send.buffer.bytes", ALL, "socket.send.buffer.bytes", Conv::SocketBuffer),
    // librdkafka's `request.timeout.ms` is only the producer's broker-side ack timeout; for the
    // other clients Java's client-side request timeout is librdkafka's `socket.timeout.ms`.
    same("request.timeout.ms", P, int(1, 900_000)),
    map("request.timeout.ms", C | A, "socket.timeout.ms", int(10, 300_000)),
    same("enable.metrics.push", ALL, Bool),
    // Security.
    same("security.protocol", ALL, Lower(&["plaintext", "ssl", "sasl_plaintext", "sasl_ssl"])),
    map(
        "sasl.mechanism",
        ALL,
        "sasl.mechanisms",
        Conv::Exact(&["GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER"]),
    ),
    custom("sasl.jaas.config", ALL, sasl_jaas_config),
    // OAUTHBEARER against an OpenID Connect token endpoint (KIP-768): librdkafka's `oidc`
    // method fetches tokens with the client id and secret of the JAAS config.
    custom("sasl.oauthbearer.token.endpoint.url", ALL, oauthbearer_token_endpoint),
    // Java's OIDC login handler; librdkafka's oidc method is its counterpart.
    silent("sasl.login.callback.handler.class", ALL),
    same("sasl.kerberos.service.name", ALL, Verbatim),
    same("sasl.kerberos.min.time.before.relogin", ALL, int(0, 86_400_000)),
    unsupported(
        "sasl.kerberos.kinit.cmd",
        ALL,
        "Java takes the kinit binary's path, librdkafka a whole command line; \
         set librdkafka.sasl.kerberos.kinit.cmd",
    ),
    custom("ssl.truststore.location", ALL, ssl_truststore_location),
    // Read by the location and password handlers.
    silent("ssl.truststore.type", ALL),
    silent("ssl.keystore.type", ALL),
    silent("ssl.truststore.password", ALL),
    map("ssl.truststore.certificates", ALL, "ssl.ca.pem", Verbatim),
    custom("ssl.keystore.location", ALL, ssl_keystore_location),
    custom("ssl.keystore.password", ALL, ssl_keystore_password),
    map("ssl.keystore.key", ALL, "ssl.key.pem", Verbatim),
    map("ssl.keystore.certificate.chain", ALL, "ssl.certificate.pem", Verbatim),
    same("ssl.key.password", ALL, Verbatim),
    same("ssl.endpoint.identification.algorithm", ALL, Conv::EndpointIdentification),
    unsupported(
        "ssl.cipher.suites",
        ALL,
        "Java uses IANA cipher suite names, OpenSSL its own names and separators; \
         set librdkafka.ssl.cipher.suites",
    ),
    unsupported("ssl.protocol", ALL, JSSE),
    unsupported("ssl.enabled.protocols", ALL, JSSE),
    unsupported("ssl.provider", ALL, JSSE),
    unsupported("ssl.keymanager.algorithm", ALL, JSSE),
    unsupported("ssl.trustmanager.algorithm", ALL, JSSE),
    unsupported("ssl.secure.random.implementation", ALL, JSSE),
    unsupported("ssl.engine.factory.class", ALL, JSSE),
    unsupported("security.providers", ALL, JSSE),
    // Producer.
    same("acks", P, Lower(&["all", "-1", "0", "1"])),
    same("linger.ms", P, int(0, 900_000)),
    // Java's 0 disables batching; librdkafka's minimum of 1 has the same effect because the
    // limit is applied after the first message of a batch.
    same("batch.size", P, int(1, I32_MAX)),
    same("compression.type", P, Lower(&["none", "gzip", "snappy", "lz4", "zstd"])),
    custom("compression.gzip.level", P, compression_level),
    custom("compression.lz4.level", P, compression_level),
    custom("compression.zstd.level", P, compression_level),
    same("enable.idempotence", P, Bool),
    same("max.in.flight.requests.per.connection", P, int(1, 1_000_000)),
    same("retries", P, int(0, I32_MAX)),
    unsupported(
        "retries",
        A,
        "librdkafka's admin client bounds retries by the request timeout, not by count",
    ),
    map("delivery.timeout.ms", P, "message.timeout.ms", Conv::DeliveryTimeout),
    same("transactional.id", P, Verbatim),
    same("transaction.timeout.ms", P, int(1000, I32_MAX)),
    custom("partitioner.class", P, partitioner_class),
    custom("partitioner.ignore.keys", P, partitioner_ignore_keys),
    unsupported("partitioner.adaptive.partitioning.enable", P, NO_ADAPTIVE_PARTITIONING),
    unsupported("partitioner.availability.timeout.ms", P, NO_ADAPTIVE_PARTITIONING),
    map("max.request.size", P, "message.max.bytes", int(1000, 1_000_000_000)),
    map("buffer.memory", P, "queue.buffering.max.kbytes", Conv::Kbytes),
    custom("max.block.ms", P, max_block_ms),
    // Connect always moves byte arrays through its clients (converters do the formatting, and
    // the Java worker overrides these too), so the byte-slice API Ferry uses is the equivalent.
    silent("key.serializer", P),
    silent("value.serializer", P),
    silent("key.deserializer", C),
    silent("value.deserializer", C),
    // Consumer.
    same("group.id", C, Verbatim),
    same("group.instance.id", C, Verbatim),
    same("group.protocol", C, Lower(&["classic", "consumer"])),
    same("group.remote.assignor", C, Verbatim),
    same("session.timeout.ms", C, int(1, 3_600_000)),
    same("heartbeat.interval.ms", C, int(1, 3_600_000)),
    same("max.poll.interval.ms", C, int(1, 86_400_000)),
    same("auto.offset.reset", C, Conv::OffsetReset),
    same("enable.auto.commit", C, Bool),
    same("auto.commit.interval.ms", C, int(0, 86_400_000)),
    same("isolation.level", C, Lower(&["read_committed", "read_uncommitted"])),
    same("fetch.min.bytes", C, int(1, 100_000_000)),
    same("fetch.max.bytes", C, int(0, 2_147_483_135)),
    map("fetch.max.wait.ms", C, "fetch.wait.max.ms", int(0, 300_000)),
    same("max.partition.fetch.bytes", C, int(1, 1_000_000_000)),
    same("partition.assignment.strategy", C, Conv::Assignors),
    same("client.rack", C, Verbatim),
    same("allow.auto.create.topics", C, Bool),
    same("check.crcs", C, Bool),
    unsupported(
        "max.poll.records",
        C,
        "librdkafka's consumer returns one record per poll, so batching is up to the caller",
    ),
    unsupported(
        "default.api.timeout.ms",
        C | A,
        "librdkafka takes a timeout on every blocking call instead",
    ),
    // Java plug-ins.
    custom("metric.reporters", ALL, metric_reporters),
    // Strimzi's reporter's settings: the worker serves every client's metrics on its listener.
    silent("prometheus.metrics.reporter.*", ALL),
    unsupported("metrics.*", ALL, JAVA_PLUGIN),
    unsupported("auto.include.jmx.reporter", ALL, JAVA_PLUGIN),
    unsupported("interceptor.classes", ALL, JAVA_PLUGIN),
    unsupported("config.providers", ALL, CONFIG_PROVIDERS),
    unsupported("config.providers.*", ALL, CONFIG_PROVIDERS),
];

const NO_ADAPTIVE_PARTITIONING: &str = "librdkafka has no adaptive partitioning";
const JSSE: &str = "it configures Java's TLS implementation; librdkafka uses OpenSSL";
const JAVA_PLUGIN: &str = "Java metrics and interceptor plug-ins cannot run in librdkafka";

/// Strimzi's metrics reporter's class names (1.x, and 0.48/0.49's).
pub const STRIMZI_METRICS_REPORTERS: [&str; 2] = [
    "io.strimzi.kafka.metrics.prometheus.ClientMetricsReporter",
    "io.strimzi.kafka.metrics.KafkaPrometheusMetricsReporter",
];

/// Strimzi's metrics reporter, which the operator names for every client, is the worker's to
/// serve (its listener shows the clients' metrics); any other reporter cannot run.
fn metric_reporters(cx: &mut Cx<'_>, key: &str, value: &str) {
    if value
        .split(',')
        .map(str::trim)
        .any(|class| !class.is_empty() && !STRIMZI_METRICS_REPORTERS.contains(&class))
    {
        cx.ignored(key, JAVA_PLUGIN);
    }
}
const CONFIG_PROVIDERS: &str =
    "config providers are resolved by the worker before client settings are translated";

impl Rule {
    fn matches(&self, key: &str) -> bool {
        match self.java.strip_suffix('*') {
            Some(prefix) => key.starts_with(prefix),
            None => self.java == key,
        }
    }
}

struct Cx<'a> {
    role: ClientRole,
    /// All Java settings, for rules that depend on other settings; last occurrence wins.
    java: HashMap<&'a str, &'a str>,
    properties: Vec<(String, String)>,
    warnings: Vec<String>,
    errors: Vec<String>,
}

impl<'a> Cx<'a> {
    fn java(&self, key: &str) -> Option<&'a str> {
        self.java.get(key).map(|v| v.trim())
    }

    fn has(&self, name: &str) -> bool {
        self.properties.iter().any(|(k, _)| k == name)
    }

    fn set(&mut self, name: &str, value: &str) {
        match self.properties.iter_mut().find(|(k, _)| k == name) {
            Some(entry) => value.clone_into(&mut entry.1),
            None => self.properties.push((name.to_owned(), value.to_owned())),
        }
    }

    fn warn(&mut self, message: String) {
        self.warnings.push(message);
    }

    /// A setting the client cannot be built with (an unreadable key store).
    fn fail(&mut self, message: String) {
        self.errors.push(message);
    }

    fn ignored(&mut self, key: &str, why: &str) {
        self.warn(format!(
            "Java client setting '{key}' has no librdkafka equivalent ({why}); ignored"
        ));
    }

    /// Keeps an untranslatable value so librdkafka's validation reports it.
    fn pass_unchanged(&mut self, key: &str, target: &str, value: &str) -> Option<String> {
        self.warn(format!(
            "Java client setting '{key}' has value '{value}', which cannot be translated for \
             librdkafka's '{target}'; passed through unchanged"
        ));
        Some(value.to_owned())
    }

    /// Clamps a Java number into librdkafka's range for `target`.
    fn clamp(&mut self, key: &str, target: &str, n: i128, min: i64, max: i64) -> i64 {
        let clamped = n.clamp(i128::from(min), i128::from(max));
        if clamped != n {
            let bound = if n > clamped { "maximum" } else { "minimum" };
            self.warn(format!(
                "Java client setting '{key}' is {n}, beyond librdkafka's {bound} of {clamped} \
                 for '{target}'; using {clamped}"
            ));
        }
        i64::try_from(clamped).unwrap_or(max)
    }
}

fn apply(cx: &mut Cx<'_>, key: &str, value: &str) {
    let mut known = false;
    for rule in RULES.iter().filter(|r| r.matches(key)) {
        known = true;
        if rule.roles & cx.role.bit() != 0 {
            match rule.action {
                Action::Map(target, conv) => {
                    if let Some(v) = convert(cx, key, target, conv, value) {
                        cx.set(target, &v);
                    }
                }
                Action::Custom(handler) => handler(cx, key, value),
                Action::Silent => {}
                Action::Unsupported(why) => cx.ignored(key, why),
            }
            return;
        }
    }
    if known {
        let noun = cx.role.noun();
        cx.warn(format!(
            "Java client setting '{key}' is not {noun} setting; ignored"
        ));
    } else {
        cx.warn(format!(
            "Java client setting '{key}' has no librdkafka equivalent; ignored"
        ));
    }
}

fn parse_int(value: &str) -> Option<i128> {
    value.parse().ok()
}

/// Returns the librdkafka value for `target`, or `None` to leave it unset.
fn convert(cx: &mut Cx<'_>, key: &str, target: &str, conv: Conv, value: &str) -> Option<String> {
    match conv {
        Conv::Verbatim => Some(value.to_owned()),
        Conv::Bool => match value.to_ascii_lowercase().as_str() {
            v @ ("true" | "false") => Some(v.to_owned()),
            _ => cx.pass_unchanged(key, target, value),
        },
        Conv::Int { min, max } => match parse_int(value) {
            Some(n) => Some(cx.clamp(key, target, n, min, max).to_string()),
            None => cx.pass_unchanged(key, target, value),
        },
        Conv::List => Some(list_items(value).collect::<Vec<_>>().join(",")),
        Conv::Lower(allowed) => {
            let lower = value.to_ascii_lowercase();
            if allowed.contains(&lower.as_str()) {
                Some(lower)
            } else {
                cx.pass_unchanged(key, target, value)
            }
        }
        Conv::Exact(allowed) => {
            if allowed.contains(&value) {
                Some(value.to_owned())
            } else {
                cx.pass_unchanged(key, target, value)
            }
        }
        Conv::SocketBuffer => match parse_int(value) {
            Some(-1) => Some("0".to_owned()),
            Some(n) => Some(cx.clamp(key, target, n, 0, 100_000_000).to_string()),
            None => cx.pass_unchanged(key, target, value),
        },
        Conv::Kbytes => match parse_int(value) {
            Some(n) => {
                // Rounded up so a small Java buffer does not become librdkafka's invalid 0.
                let kbytes = (n + 1023).div_euclid(1024);
                Some(cx.clamp(key, target, kbytes, 1, I32_MAX).to_string())
            }
            None => cx.pass_unchanged(key, target, value),
        },
        Conv::DeliveryTimeout => match parse_int(value) {
            // Connect's default of Integer.MAX_VALUE means "never give up"; librdkafka says that
            // with 0, and cannot represent anything longer.
            Some(n) if n >= i128::from(I32_MAX) => Some("0".to_owned()),
            Some(0) => {
                cx.warn(format!(
                    "Java client setting '{key}' is 0, which the Java producer rejects but \
                     librdkafka's '{target}' treats as no timeout at all"
                ));
                Some("0".to_owned())
            }
            Some(n) if n > 0 => Some(n.to_string()),
            _ => cx.pass_unchanged(key, target, value),
        },
        Conv::OffsetReset => match value.to_ascii_lowercase().as_str() {
            v @ ("earliest" | "latest") => Some(v.to_owned()),
            "none" => Some("error".to_owned()),
            _ => cx.pass_unchanged(key, target, value),
        },
        Conv::EndpointIdentification => {
            if value.is_empty() {
                Some("none".to_owned())
            } else if value.eq_ignore_ascii_case("https") {
                Some("https".to_owned())
            } else {
                cx.warn(format!(
                    "Java client setting '{key}' is '{value}', but librdkafka only verifies \
                     host names the https way; keeping https verification"
                ));
                None
            }
        }
        Conv::Assignors => assignors(cx, key, value),
    }
}

fn list_items(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

fn assignors(cx: &mut Cx<'_>, key: &str, value: &str) -> Option<String> {
    const PACKAGE: &str = "org.apache.kafka.clients.consumer.";
    let mut names: Vec<&str> = Vec::new();
    let mut cooperative = None;
    for class in list_items(value) {
        let (name, is_cooperative) = match class.strip_prefix(PACKAGE) {
            Some("RangeAssignor") => ("range", false),
            Some("RoundRobinAssignor") => ("roundrobin", false),
            Some("CooperativeStickyAssignor") => ("cooperative-sticky", true),
            _ => {
                cx.warn(format!(
                    "assignor '{class}' in Java client setting '{key}' has no librdkafka \
                     equivalent; skipped"
                ));
                continue;
            }
        };
        // librdkafka refuses a mix of eager and cooperative assignors (Java's own default list
        // mixes them to allow rolling upgrades); the first one listed decides, as it would
        // in a group whose members all support it.
        match cooperative {
            Some(c) if c != is_cooperative => {
                cx.warn(format!(
                    "assignor '{class}' in Java client setting '{key}' cannot be combined with \
                     the assignors before it in librdkafka; skipped"
                ));
                continue;
            }
            _ => cooperative = Some(is_cooperative),
        }
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if names.is_empty() {
        cx.warn(format!(
            "Java client setting '{key}' names no assignor librdkafka supports; \
             librdkafka's default is used"
        ));
        return None;
    }
    Some(names.join(","))
}

fn truststore_type<'a>(cx: &Cx<'a>) -> &'a str {
    store_type(cx, "ssl.truststore.type")
}

fn keystore_type<'a>(cx: &Cx<'a>) -> &'a str {
    store_type(cx, "ssl.keystore.type")
}

fn store_type<'a>(cx: &Cx<'a>, key: &str) -> &'a str {
    match cx.java(key) {
        Some(t) if !t.is_empty() => t,
        // Java's default store type.
        _ => "JKS",
    }
}

fn ssl_truststore_location(cx: &mut Cx<'_>, key: &str, value: &str) {
    let store = truststore_type(cx);
    if store.eq_ignore_ascii_case("PEM") {
        cx.set("ssl.ca.location", value);
        return;
    }
    // librdkafka reads PEM only: the store's certificates are read here and passed inline.
    let password = cx.java("ssl.truststore.password").unwrap_or("");
    match crate::stores::truststore_pem(value, store, password) {
        Ok(pem) => cx.set("ssl.ca.pem", &pem),
        Err(problem) => cx.fail(format!("Java client setting '{key}': {problem}")),
    }
}

fn ssl_keystore_location(cx: &mut Cx<'_>, key: &str, value: &str) {
    let store = keystore_type(cx);
    if store.eq_ignore_ascii_case("PKCS12") {
        cx.set("ssl.keystore.location", value);
    } else if store.eq_ignore_ascii_case("PEM") {
        // A Java PEM key store holds the key and the certificate chain in one file; OpenSSL's
        // PEM readers skip blocks of the other kind, so the file serves both settings.
        cx.set("ssl.certificate.location", value);
        cx.set("ssl.key.location", value);
    } else {
        // JKS (or a PKCS12 file under Java's default type JKS): read here, passed inline.
        let password = cx.java("ssl.keystore.password").unwrap_or("");
        let key_password = cx.java("ssl.key.password");
        match crate::stores::keystore_pem(value, store, password, key_password) {
            Ok(material) => {
                cx.set("ssl.key.pem", &material.key_pem);
                cx.set("ssl.certificate.pem", &material.chain_pem);
            }
            Err(problem) => cx.fail(format!("Java client setting '{key}': {problem}")),
        }
    }
}

fn ssl_keystore_password(cx: &mut Cx<'_>, _key: &str, value: &str) {
    let store = keystore_type(cx);
    if store.eq_ignore_ascii_case("PKCS12") {
        cx.set("ssl.keystore.password", value);
    }
    // PEM key stores have no store password (Java ignores it too); JKS stores are opened with
    // it by the location handler.
}

fn compression_level(cx: &mut Cx<'_>, key: &str, value: &str) {
    let codec = key
        .strip_prefix("compression.")
        .and_then(|rest| rest.strip_suffix(".level"));
    let selected = cx.java("compression.type").map(str::to_ascii_lowercase);
    // Java also ignores the levels of codecs it is not using.
    if codec.is_some() && codec == selected.as_deref() {
        if let Some(level) = convert(cx, key, "compression.level", int(-1, 12), value) {
            cx.set("compression.level", &level);
        }
    }
}

fn partitioner_class(cx: &mut Cx<'_>, key: &str, value: &str) {
    match value {
        // Empty selects Java's built-in partitioning, which the producer default covers.
        "" => {}
        "org.apache.kafka.clients.producer.internals.DefaultPartitioner" => {
            cx.set("partitioner", JAVA_DEFAULT_PARTITIONER);
        }
        "org.apache.kafka.clients.producer.UniformStickyPartitioner"
        | "org.apache.kafka.clients.producer.RoundRobinPartitioner" => {
            cx.set("partitioner", "random");
            cx.warn(format!(
                "Java client setting '{key}' ({value}) is approximated by librdkafka's \
                 'random' partitioner, which also ignores keys"
            ));
        }
        _ => cx.warn(format!(
            "Java client setting '{key}' names partitioner '{value}', which cannot run in \
             librdkafka; records are partitioned like Java's default partitioner instead"
        )),
    }
}

fn partitioner_ignore_keys(cx: &mut Cx<'_>, key: &str, value: &str) {
    // Java documents that a configured partitioner class makes this setting irrelevant.
    if cx.java("partitioner.class").is_some_and(|c| !c.is_empty()) {
        return;
    }
    match value.to_ascii_lowercase().as_str() {
        "true" => cx.set("partitioner", "random"),
        "false" => {}
        _ => cx.warn(format!(
            "Java client setting '{key}' is '{value}', not true or false; ignored"
        )),
    }
}

fn max_block_ms(cx: &mut Cx<'_>, key: &str, value: &str) {
    // Connect's own default (Long.MAX_VALUE, wait forever for buffer space) is what a
    // librdkafka producer loop does when it retries on a full queue, so it needs no warning.
    if parse_int(value) == Some(i128::from(i64::MAX)) {
        return;
    }
    cx.ignored(
        key,
        "librdkafka's produce() never blocks; it reports a full queue and the caller decides \
         how long to wait",
    );
}

// ---------------------------------------------------------------------------------------------
// sasl.jaas.config

const PLAIN_LOGIN_MODULE: &str = "org.apache.kafka.common.security.plain.PlainLoginModule";
const SCRAM_LOGIN_MODULE: &str = "org.apache.kafka.common.security.scram.ScramLoginModule";
const OAUTHBEARER_LOGIN_MODULE: &str =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
const KERBEROS_LOGIN_MODULE: &str = "com.sun.security.auth.module.Krb5LoginModule";

fn oauthbearer_token_endpoint(cx: &mut Cx<'_>, _key: &str, value: &str) {
    cx.set("sasl.oauthbearer.method", "oidc");
    cx.set("sasl.oauthbearer.token.endpoint.url", value);
}

/// OAuthBearerLoginModule's options: OIDC client credentials, or Java's unsecured test tokens
/// (`unsecuredLoginStringClaim_sub`), which librdkafka builds the same way.
fn oauthbearer_module(cx: &mut Cx<'_>, key: &str, options: &[(String, String)]) {
    for (name, option) in options {
        match name.as_str() {
            "clientId" => cx.set("sasl.oauthbearer.client.id", option),
            "clientSecret" => cx.set("sasl.oauthbearer.client.secret", option),
            "scope" => cx.set("sasl.oauthbearer.scope", option),
            "unsecuredLoginStringClaim_sub" => {
                cx.set("enable.sasl.oauthbearer.unsecure.jwt", "true");
                cx.set("sasl.oauthbearer.config", &format!("principal={option}"));
            }
            _ => cx.warn(format!(
                "option '{name}' of Java client setting '{key}' has no librdkafka \
                 equivalent; ignored"
            )),
        }
    }
}

/// Krb5LoginModule's options for librdkafka's GSSAPI (Cyrus SASL, kinit with a keytab).
fn kerberos_module(cx: &mut Cx<'_>, key: &str, options: &[(String, String)]) {
    for (name, option) in options {
        match name.as_str() {
            "keyTab" => cx.set("sasl.kerberos.keytab", option),
            "principal" => cx.set("sasl.kerberos.principal", option),
            "serviceName" => cx.set("sasl.kerberos.service.name", option),
            // How Java's module finds its credentials; librdkafka always uses the keytab.
            "useKeyTab" | "storeKey" | "doNotPrompt" | "useTicketCache" => {}
            _ => cx.warn(format!(
                "option '{name}' of Java client setting '{key}' has no librdkafka \
                 equivalent; ignored"
            )),
        }
    }
}

/// Java Connect sets `bootstrap.resolve.timeout.ms=0` on every client it makes (Kafka 4.4), with
/// a warning when the user chose another value; librdkafka always resolves synchronously.
fn bootstrap_resolve_timeout(cx: &mut Cx<'_>, key: &str, value: &str) {
    if value.trim() != "0" {
        cx.warn(format!(
            "The value {} for the {key} property will be ignored in Kafka Connect, which does not support asynchronous bootstrap resolution; 0 is used",
            value.trim()
        ));
    }
}

fn sasl_jaas_config(cx: &mut Cx<'_>, key: &str, value: &str) {
    let module = match parse_jaas(value) {
        Ok(module) => module,
        Err(reason) => {
            // The reason never quotes the text, which holds the password.
            cx.warn(format!(
                "Java client setting '{key}' could not be parsed ({reason}); ignored"
            ));
            return;
        }
    };
    let class = module.class.as_str();
    if class == OAUTHBEARER_LOGIN_MODULE {
        return oauthbearer_module(cx, key, &module.options);
    }
    if class == KERBEROS_LOGIN_MODULE {
        return kerberos_module(cx, key, &module.options);
    }
    let scram = class == SCRAM_LOGIN_MODULE;
    if class != PLAIN_LOGIN_MODULE && !scram {
        cx.warn(format!(
            "Java client setting '{key}' uses login module '{class}', which librdkafka cannot \
             run; configure it with librdkafka.sasl.* settings; ignored"
        ));
        return;
    }
    let (mut username, mut password) = (false, false);
    for (name, option) in &module.options {
        match name.as_str() {
            "username" => {
                cx.set("sasl.username", option);
                username = true;
            }
            "password" => {
                cx.set("sasl.password", option);
                password = true;
            }
            "tokenauth" if scram => {
                if option.trim().eq_ignore_ascii_case("true") {
                    cx.warn(format!(
                        "Java client setting '{key}' enables delegation-token authentication \
                         (tokenauth=true), which is not translated; the token is sent as a \
                         plain SCRAM password"
                    ));
                }
            }
            _ => cx.warn(format!(
                "option '{name}' of Java client setting '{key}' has no librdkafka \
                 equivalent; ignored"
            )),
        }
    }
    if !(username && password) {
        cx.warn(format!(
            "Java client setting '{key}' lacks a username or password"
        ));
    }
}

#[derive(Debug, PartialEq, Eq)]
struct LoginModule {
    class: String,
    options: Vec<(String, String)>,
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
    Equals,
    Semicolon,
}

/// Parses a JAAS configuration entry the way Kafka clients do: exactly one
/// `Class flag name=value ... ;` with `"..."` values that may contain backslash escapes, and
/// `//` and `/* */` comments.
fn parse_jaas(text: &str) -> Result<LoginModule, &'static str> {
    let mut tokens = jaas_tokens(text)?.into_iter();
    let class = match tokens.next() {
        Some(Token::Word(class)) => class,
        _ => return Err("expected a login module class name"),
    };
    // The control flag only matters for stacked modules, which Kafka clients do not allow.
    match tokens.next() {
        Some(Token::Word(flag))
            if ["required", "requisite", "sufficient", "optional"]
                .iter()
                .any(|f| f.eq_ignore_ascii_case(&flag)) => {}
        _ => return Err("expected control flag required, requisite, sufficient or optional"),
    }
    let mut options = Vec::new();
    loop {
        match tokens.next() {
            Some(Token::Semicolon) => break,
            Some(Token::Word(name)) => {
                if tokens.next() != Some(Token::Equals) {
                    return Err("expected '=' after an option name");
                }
                match tokens.next() {
                    Some(Token::Word(value) | Token::Quoted(value)) => options.push((name, value)),
                    _ => return Err("expected an option value after '='"),
                }
            }
            None => return Err("missing ';' after the login module"),
            Some(_) => return Err("expected an option name"),
        }
    }
    if tokens.next().is_some() {
        return Err("Kafka clients accept exactly one login module");
    }
    Ok(LoginModule { class, options })
}

fn jaas_tokens(text: &str) -> Result<Vec<Token>, &'static str> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            _ if c.is_whitespace() => i += 1,
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                i += 2;
                loop {
                    match (chars.get(i), chars.get(i + 1)) {
                        (Some('*'), Some('/')) => break,
                        (Some(_), _) => i += 1,
                        (None, _) => return Err("unterminated comment"),
                    }
                }
                i += 2;
            }
            '=' => {
                tokens.push(Token::Equals);
                i += 1;
            }
            ';' => {
                tokens.push(Token::Semicolon);
                i += 1;
            }
            '"' => {
                i += 1;
                let mut value = String::new();
                loop {
                    match chars.get(i) {
                        None => return Err("unterminated quoted value"),
                        Some('"') => break,
                        Some('\\') => {
                            i += 1;
                            match chars.get(i) {
                                None => return Err("unterminated quoted value"),
                                Some(&escaped) => value.push(unescape(escaped)),
                            }
                        }
                        Some(&ch) => value.push(ch),
                    }
                    i += 1;
                }
                i += 1;
                tokens.push(Token::Quoted(value));
            }
            _ => {
                let start = i;
                while i < chars.len() && !chars[i].is_whitespace() && !"=;\"".contains(chars[i]) {
                    i += 1;
                }
                tokens.push(Token::Word(chars[start..i].iter().collect()));
            }
        }
    }
    Ok(tokens)
}

/// The escapes of `java.io.StreamTokenizer`, which Kafka's JAAS parser uses; any other
/// escaped character stands for itself.
fn unescape(c: char) -> char {
    match c {
        'a' => '\u{7}',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'v' => '\u{b}',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn run(role: ClientRole, pairs: &[(&str, &str)]) -> Translated {
        translate(role, &settings(pairs))
    }

    fn get<'t>(t: &'t Translated, name: &str) -> Option<&'t str> {
        t.properties
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Properties other than the producer's partitioner default.
    fn explicit(t: &Translated) -> Vec<(&str, &str)> {
        t.properties
            .iter()
            .filter(|(k, v)| !(k == "partitioner" && v == JAVA_DEFAULT_PARTITIONER))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    use ClientRole::{Admin, Consumer, Producer};

    /// (role, Java key, Java value, librdkafka name, librdkafka value)
    type Case<'a> = (ClientRole, &'a str, &'a str, &'a str, &'a str);

    /// One Java setting in, exactly one librdkafka setting out, no warnings.
    fn check_single(cases: &[Case<'_>]) {
        for &(role, key, value, target, expected) in cases {
            let t = run(role, &[(key, value)]);
            assert_eq!(
                explicit(&t),
                vec![(target, expected)],
                "{role:?} {key}={value}: {t:?}"
            );
            assert!(
                t.warnings.is_empty(),
                "{role:?} {key}={value}: {:?}",
                t.warnings
            );
        }
    }

    #[test]
    fn same_name_mappings() {
        // (role, key, Java value, librdkafka value)
        #[rustfmt::skip]
        let cases: &[(ClientRole, &str, &str, &str)] = &[
            (Admin, "client.id", "ferry-admin", "ferry-admin"),
            (Producer, "acks", "all", "all"),
            (Producer, "acks", "-1", "-1"),
            (Producer, "linger.ms", "20", "20"),
            (Producer, "batch.size", "16384", "16384"),
            (Producer, "compression.type", "zstd", "zstd"),
            (Producer, "enable.idempotence", "true", "true"),
            (Producer, "max.in.flight.requests.per.connection", "1", "1"),
            (Producer, "retries", "2147483647", "2147483647"),
            (Producer, "retry.backoff.ms", "250", "250"),
            (Consumer, "retry.backoff.max.ms", "2000", "2000"),
            (Producer, "request.timeout.ms", "30000", "30000"),
            (Producer, "transactional.id", "connect-1", "connect-1"),
            (Producer, "transaction.timeout.ms", "60000", "60000"),
            (Consumer, "session.timeout.ms", "45000", "45000"),
            (Consumer, "heartbeat.interval.ms", "3000", "3000"),
            (Consumer, "max.poll.interval.ms", "300000", "300000"),
            (Consumer, "enable.auto.commit", "false", "false"),
            (Consumer, "auto.commit.interval.ms", "5000", "5000"),
            (Consumer, "group.id", "connect-sink", "connect-sink"),
            (Consumer, "group.instance.id", "w-1", "w-1"),
            (Consumer, "group.protocol", "CONSUMER", "consumer"),
            (Consumer, "group.remote.assignor", "uniform", "uniform"),
            (Consumer, "isolation.level", "read_committed", "read_committed"),
            (Consumer, "fetch.min.bytes", "1", "1"),
            (Consumer, "fetch.max.bytes", "52428800", "52428800"),
            (Consumer, "max.partition.fetch.bytes", "1048576", "1048576"),
            (Consumer, "client.rack", "use1-az1", "use1-az1"),
            (Consumer, "allow.auto.create.topics", "false", "false"),
            (Consumer, "check.crcs", "true", "true"),
            (Admin, "reconnect.backoff.ms", "50", "50"),
            (Admin, "reconnect.backoff.max.ms", "1000", "1000"),
            (Producer, "connections.max.idle.ms", "540000", "540000"),
            (Consumer, "socket.connection.setup.timeout.ms", "10000", "10000"),
            (Admin, "client.dns.lookup", "use_all_dns_ips", "use_all_dns_ips"),
            (Producer, "enable.metrics.push", "false", "false"),
            (Admin, "metadata.recovery.strategy", "rebootstrap", "rebootstrap"),
            (Admin, "metadata.recovery.rebootstrap.trigger.ms", "300000", "300000"),
            (Consumer, "sasl.kerberos.service.name", "kafka", "kafka"),
            (Consumer, "sasl.kerberos.min.time.before.relogin", "60000", "60000"),
            (Admin, "ssl.key.password", "s3cret", "s3cret"),
        ];
        let cases: Vec<Case<'_>> = cases.iter().map(|&(r, k, v, e)| (r, k, v, k, e)).collect();
        check_single(&cases);
    }

    #[test]
    fn renamed_mappings() {
        #[rustfmt::skip]
        let cases: &[Case<'_>] = &[
            (Producer, "delivery.timeout.ms", "120000", "message.timeout.ms", "120000"),
            (Consumer, "fetch.max.wait.ms", "500", "fetch.wait.max.ms", "500"),
            (Admin, "receive.buffer.bytes", "65536", "socket.receive.buffer.bytes", "65536"),
            (Producer, "send.buffer.bytes", "131072", "socket.send.buffer.bytes", "131072"),
            (Consumer, "sasl.mechanism", "SCRAM-SHA-512", "sasl.mechanisms", "SCRAM-SHA-512"),
            (Producer, "max.request.size", "1048576", "message.max.bytes", "1048576"),
            (Producer, "buffer.memory", "33554432", "queue.buffering.max.kbytes", "32768"),
            (Consumer, "request.timeout.ms", "30000", "socket.timeout.ms", "30000"),
            (Admin, "request.timeout.ms", "30000", "socket.timeout.ms", "30000"),
            (Admin, "metadata.max.age.ms", "60000", "topic.metadata.refresh.interval.ms", "60000"),
            (Admin, "ssl.truststore.certificates", "PEM", "ssl.ca.pem", "PEM"),
            (Admin, "ssl.keystore.key", "PEM", "ssl.key.pem", "PEM"),
            (Admin, "ssl.keystore.certificate.chain", "PEM", "ssl.certificate.pem", "PEM"),
        ];
        check_single(cases);
    }

    #[test]
    fn value_translations() {
        const RANGE: &str = "org.apache.kafka.clients.consumer.RangeAssignor";
        const ROUND_ROBIN: &str = "org.apache.kafka.clients.consumer.RoundRobinAssignor";
        const COOPERATIVE: &str = "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
        let range_round_robin = format!("{RANGE}, {ROUND_ROBIN}");
        let strategy = "partition.assignment.strategy";
        let endpoint = "ssl.endpoint.identification.algorithm";
        #[rustfmt::skip]
        let cases: &[Case<'_>] = &[
            (Admin, "bootstrap.servers", " a:1 , b:2,, ", "bootstrap.servers", "a:1,b:2"),
            (Producer, "delivery.timeout.ms", "2147483647", "message.timeout.ms", "0"),
            (Producer, "delivery.timeout.ms", "9223372036854775807", "message.timeout.ms", "0"),
            (Consumer, "auto.offset.reset", "earliest", "auto.offset.reset", "earliest"),
            (Consumer, "auto.offset.reset", "LATEST", "auto.offset.reset", "latest"),
            (Consumer, "auto.offset.reset", "none", "auto.offset.reset", "error"),
            (Producer, "buffer.memory", "1000", "queue.buffering.max.kbytes", "1"),
            (Producer, "buffer.memory", "1025", "queue.buffering.max.kbytes", "2"),
            (Consumer, "receive.buffer.bytes", "-1", "socket.receive.buffer.bytes", "0"),
            (Producer, "send.buffer.bytes", "-1", "socket.send.buffer.bytes", "0"),
            (Admin, "security.protocol", "SASL_SSL", "security.protocol", "sasl_ssl"),
            (Admin, "security.protocol", "plaintext", "security.protocol", "plaintext"),
            (Admin, endpoint, "", endpoint, "none"),
            (Admin, endpoint, "HTTPS", endpoint, "https"),
            (Consumer, "enable.auto.commit", " TRUE ", "enable.auto.commit", "true"),
            (Producer, "acks", "ALL", "acks", "all"),
            (Producer, "compression.type", "LZ4", "compression.type", "lz4"),
            (Consumer, strategy, &range_round_robin, strategy, "range,roundrobin"),
            (Consumer, strategy, COOPERATIVE, strategy, "cooperative-sticky"),
        ];
        check_single(cases);
    }

    #[test]
    fn numbers_are_clamped_into_librdkafka_ranges() {
        let long_max = i64::MAX.to_string();
        #[rustfmt::skip]
        let cases: &[Case<'_>] = &[
            (Consumer, "max.poll.interval.ms", "2147483647", "max.poll.interval.ms", "86400000"),
            (Producer, "batch.size", "0", "batch.size", "1"),
            (Producer, "retry.backoff.ms", "0", "retry.backoff.ms", "1"),
            (Producer, "request.timeout.ms", "2147483647", "request.timeout.ms", "900000"),
            (Producer, "buffer.memory", &long_max, "queue.buffering.max.kbytes", "2147483647"),
        ];
        for &(role, key, value, target, expected) in cases {
            let t = run(role, &[(key, value)]);
            assert_eq!(explicit(&t), vec![(target, expected)], "{key}={value}");
            assert_eq!(t.warnings.len(), 1, "{key}={value}: {:?}", t.warnings);
            assert!(t.warnings[0].contains(key) && t.warnings[0].contains(expected));
        }
    }

    #[test]
    fn untranslatable_values_pass_through_with_a_warning() {
        // (role, key, Java value, librdkafka name)
        #[rustfmt::skip]
        let cases = [
            (Producer, "linger.ms", "soon", "linger.ms"),
            (Consumer, "auto.offset.reset", "by_duration:P1D", "auto.offset.reset"),
            (Admin, "security.protocol", "TLS", "security.protocol"),
            (Consumer, "enable.auto.commit", "yes", "enable.auto.commit"),
            (Admin, "sasl.mechanism", "AWS_MSK_IAM", "sasl.mechanisms"),
            (Producer, "delivery.timeout.ms", "-5", "message.timeout.ms"),
        ];
        for (role, key, value, target) in cases {
            let t = run(role, &[(key, value)]);
            assert_eq!(explicit(&t), vec![(target, value)], "{key}={value}");
            assert_eq!(t.warnings.len(), 1, "{key}={value}: {:?}", t.warnings);
            assert!(t.warnings[0].contains(key), "{:?}", t.warnings);
        }
    }

    #[test]
    fn zero_delivery_timeout_warns_that_it_means_infinite() {
        let t = run(Producer, &[("delivery.timeout.ms", "0")]);
        assert_eq!(get(&t, "message.timeout.ms"), Some("0"));
        assert_eq!(t.warnings.len(), 1);
    }

    #[test]
    fn unsupported_endpoint_identification_keeps_https() {
        let t = run(Admin, &[("ssl.endpoint.identification.algorithm", "LDAPS")]);
        assert!(t.properties.is_empty());
        assert_eq!(t.warnings.len(), 1);
    }

    #[test]
    fn assignors_cannot_mix_eager_and_cooperative() {
        // Java 3.x's default list.
        let t = run(
            Consumer,
            &[(
                "partition.assignment.strategy",
                "org.apache.kafka.clients.consumer.RangeAssignor,\
                 org.apache.kafka.clients.consumer.CooperativeStickyAssignor",
            )],
        );
        assert_eq!(get(&t, "partition.assignment.strategy"), Some("range"));
        assert_eq!(t.warnings.len(), 1);
        assert!(t.warnings[0].contains("CooperativeStickyAssignor"));
    }

    #[test]
    fn unknown_assignors_are_skipped() {
        let t = run(
            Consumer,
            &[(
                "partition.assignment.strategy",
                "org.apache.kafka.clients.consumer.StickyAssignor,com.acme.MyAssignor",
            )],
        );
        assert!(t.properties.is_empty());
        assert_eq!(t.warnings.len(), 3, "{:?}", t.warnings);
        assert!(t.warnings[0].contains("StickyAssignor"));
        assert!(t.warnings[1].contains("com.acme.MyAssignor"));
    }

    #[test]
    fn compression_level_follows_the_selected_codec() {
        let t = run(
            Producer,
            &[
                ("compression.zstd.level", "3"),
                ("compression.type", "zstd"),
                ("compression.gzip.level", "9"),
            ],
        );
        assert_eq!(get(&t, "compression.level"), Some("3"));
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);

        let t = run(
            Producer,
            &[
                ("compression.type", "zstd"),
                ("compression.zstd.level", "22"),
            ],
        );
        assert_eq!(get(&t, "compression.level"), Some("12"));
        assert_eq!(t.warnings.len(), 1);

        let t = run(Producer, &[("compression.lz4.level", "9")]);
        assert_eq!(get(&t, "compression.level"), None);
        assert!(t.warnings.is_empty());
    }

    #[test]
    fn role_filtering() {
        let cases = [
            (Producer, "group.id", "a producer"),
            (Producer, "auto.offset.reset", "a producer"),
            (Producer, "key.deserializer", "a producer"),
            (Consumer, "acks", "a consumer"),
            (Consumer, "retries", "a consumer"),
            (Consumer, "transactional.id", "a consumer"),
            (Consumer, "key.serializer", "a consumer"),
            (Admin, "group.id", "an admin"),
            (Admin, "linger.ms", "an admin"),
            (Admin, "max.poll.records", "an admin"),
        ];
        for (role, key, noun) in cases {
            let t = run(role, &[(key, "1")]);
            assert!(explicit(&t).is_empty(), "{role:?} {key}: {t:?}");
            assert_eq!(
                t.warnings,
                vec![format!(
                    "Java client setting '{key}' is not {noun} setting; ignored"
                )]
            );
        }
    }

    #[test]
    fn shared_settings_apply_to_every_role() {
        for role in [Producer, Consumer, Admin] {
            let t = run(
                role,
                &[
                    ("bootstrap.servers", "k:9092"),
                    ("security.protocol", "SSL"),
                ],
            );
            assert_eq!(get(&t, "bootstrap.servers"), Some("k:9092"));
            assert_eq!(get(&t, "security.protocol"), Some("ssl"));
            assert!(t.warnings.is_empty());
        }
    }

    #[test]
    fn admin_retries_are_explained() {
        let t = run(Admin, &[("retries", "5")]);
        assert!(t.properties.is_empty());
        assert_eq!(t.warnings.len(), 1);
        assert!(t.warnings[0].contains("'retries' has no librdkafka equivalent ("));
    }

    #[test]
    fn unknown_keys_warn_and_are_not_passed_through() {
        let t = run(
            Consumer,
            &[
                ("exclude.internal.topics", "true"),
                ("queued.min.messages", "5"),
            ],
        );
        assert!(t.properties.is_empty());
        assert_eq!(
            t.warnings,
            vec![
                "Java client setting 'exclude.internal.topics' has no librdkafka equivalent; \
                 ignored",
                "Java client setting 'queued.min.messages' has no librdkafka equivalent; ignored",
            ]
        );
    }

    #[test]
    fn serializers_are_ignored_silently() {
        let byte_array = "org.apache.kafka.common.serialization.ByteArraySerializer";
        let t = run(
            Producer,
            &[
                ("key.serializer", byte_array),
                ("value.serializer", byte_array),
            ],
        );
        assert!(explicit(&t).is_empty());
        assert!(t.warnings.is_empty());

        let byte_array = "org.apache.kafka.common.serialization.ByteArrayDeserializer";
        let t = run(
            Consumer,
            &[
                ("key.deserializer", byte_array),
                ("value.deserializer", byte_array),
            ],
        );
        assert!(t.properties.is_empty());
        assert!(t.warnings.is_empty());
    }

    #[test]
    fn kafka_4_4_client_settings_are_known() {
        let t = run(Consumer, &[("bootstrap.resolve.timeout.ms", "0")]);
        assert!(t.properties.is_empty() && t.warnings.is_empty(), "{t:?}");
        let t = run(Producer, &[("bootstrap.resolve.timeout.ms", "5000")]);
        assert!(explicit(&t).is_empty(), "{t:?}");
        assert!(
            t.warnings[0].contains("does not support asynchronous bootstrap resolution"),
            "{t:?}"
        );
        let t = run(Admin, &[("metadata.cluster.check.enable", "true")]);
        assert!(t.properties.is_empty());
        assert!(
            t.warnings[0].contains("metadata.cluster.check.enable"),
            "{t:?}"
        );
    }

    #[test]
    fn strimzi_s_metrics_reporter_settings_are_the_worker_s() {
        let t = run(
            Producer,
            &[
                (
                    "metric.reporters",
                    "io.strimzi.kafka.metrics.prometheus.ClientMetricsReporter",
                ),
                ("prometheus.metrics.reporter.listener", "http://:9404"),
                ("prometheus.metrics.reporter.allowlist", ".*"),
            ],
        );
        assert!(explicit(&t).is_empty() && t.warnings.is_empty(), "{t:?}");
        let t = run(
            Producer,
            &[(
                "metric.reporters",
                "io.strimzi.kafka.metrics.prometheus.ClientMetricsReporter,com.acme.Reporter",
            )],
        );
        assert!(t.warnings[0].contains("metric.reporters"), "{t:?}");
    }

    #[test]
    fn ignored_settings_explain_why() {
        let cases = [
            (Consumer, "max.poll.records", "500"),
            (Producer, "metric.reporters", "com.acme.Reporter"),
            (Admin, "metrics.sample.window.ms", "30000"),
            (Consumer, "metrics.context.connect.kafka.cluster.id", "abc"),
            (Producer, "interceptor.classes", "com.acme.Interceptor"),
            (Admin, "config.providers", "file"),
            (
                Admin,
                "config.providers.file.class",
                "org.apache.kafka.common.config.provider.X",
            ),
            (Producer, "ssl.cipher.suites", "TLS_AES_128_GCM_SHA256"),
            (Consumer, "ssl.enabled.protocols", "TLSv1.2"),
            (Consumer, "default.api.timeout.ms", "60000"),
            (Producer, "max.block.ms", "60000"),
            (Producer, "partitioner.adaptive.partitioning.enable", "true"),
            (Admin, "socket.connection.setup.timeout.max.ms", "30000"),
        ];
        for (role, key, value) in cases {
            let t = run(role, &[(key, value)]);
            assert!(explicit(&t).is_empty(), "{key}: {t:?}");
            assert_eq!(t.warnings.len(), 1, "{key}: {:?}", t.warnings);
            let prefix = format!("Java client setting '{key}' has no librdkafka equivalent (");
            assert!(t.warnings[0].starts_with(&prefix), "{:?}", t.warnings);
        }
    }

    #[test]
    fn connects_own_max_block_default_is_silent() {
        let t = run(Producer, &[("max.block.ms", "9223372036854775807")]);
        assert!(explicit(&t).is_empty());
        assert!(t.warnings.is_empty());
    }

    #[test]
    fn connect_worker_client_defaults_translate_cleanly() {
        // The settings Kafka Connect's Worker gives its task clients.
        let producer = run(
            Producer,
            &[
                ("bootstrap.servers", "k:9092"),
                (
                    "key.serializer",
                    "org.apache.kafka.common.serialization.ByteArraySerializer",
                ),
                (
                    "value.serializer",
                    "org.apache.kafka.common.serialization.ByteArraySerializer",
                ),
                ("max.block.ms", "9223372036854775807"),
                ("enable.idempotence", "false"),
                ("acks", "all"),
                ("max.in.flight.requests.per.connection", "1"),
                ("delivery.timeout.ms", "2147483647"),
                ("client.id", "connector-producer-sink-0"),
            ],
        );
        assert!(producer.warnings.is_empty(), "{:?}", producer.warnings);
        assert_eq!(
            producer.properties,
            settings(&[
                ("bootstrap.servers", "k:9092"),
                ("enable.idempotence", "false"),
                ("acks", "all"),
                ("max.in.flight.requests.per.connection", "1"),
                ("message.timeout.ms", "0"),
                ("client.id", "connector-producer-sink-0"),
                ("partitioner", "murmur2_random"),
            ])
        );

        let consumer = run(
            Consumer,
            &[
                ("bootstrap.servers", "k:9092"),
                ("enable.auto.commit", "false"),
                ("auto.offset.reset", "earliest"),
                (
                    "key.deserializer",
                    "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                ),
                (
                    "value.deserializer",
                    "org.apache.kafka.common.serialization.ByteArrayDeserializer",
                ),
                ("group.id", "connect-sink"),
                ("client.id", "connector-consumer-sink-0"),
            ],
        );
        assert!(consumer.warnings.is_empty(), "{:?}", consumer.warnings);
        assert_eq!(consumer.properties.len(), 5);
    }

    // --- partitioner ---

    #[test]
    fn producers_default_to_javas_murmur2_partitioning() {
        let t = run(Producer, &[]);
        assert_eq!(t.properties, settings(&[("partitioner", "murmur2_random")]));
        assert!(run(Consumer, &[]).properties.is_empty());
        assert!(run(Admin, &[]).properties.is_empty());
    }

    #[test]
    fn partitioner_class_translations() {
        let cases = [
            (
                "org.apache.kafka.clients.producer.internals.DefaultPartitioner",
                "murmur2_random",
                0,
            ),
            ("", "murmur2_random", 0),
            (
                "org.apache.kafka.clients.producer.UniformStickyPartitioner",
                "random",
                1,
            ),
            (
                "org.apache.kafka.clients.producer.RoundRobinPartitioner",
                "random",
                1,
            ),
            ("com.acme.GeoPartitioner", "murmur2_random", 1),
        ];
        for (class, expected, warnings) in cases {
            let t = run(Producer, &[("partitioner.class", class)]);
            assert_eq!(
                t.properties,
                settings(&[("partitioner", expected)]),
                "{class}"
            );
            assert_eq!(t.warnings.len(), warnings, "{class}: {:?}", t.warnings);
        }
    }

    #[test]
    fn partitioner_ignore_keys() {
        let t = run(Producer, &[("partitioner.ignore.keys", "true")]);
        assert_eq!(get(&t, "partitioner"), Some("random"));
        let t = run(Producer, &[("partitioner.ignore.keys", "false")]);
        assert_eq!(get(&t, "partitioner"), Some("murmur2_random"));
        // A configured partitioner class takes precedence, as in Java.
        let t = run(
            Producer,
            &[
                ("partitioner.ignore.keys", "true"),
                (
                    "partitioner.class",
                    "org.apache.kafka.clients.producer.internals.DefaultPartitioner",
                ),
            ],
        );
        assert_eq!(get(&t, "partitioner"), Some("murmur2_random"));
        assert!(t.warnings.is_empty());
    }

    // --- SSL stores ---

    #[test]
    fn trust_store_needs_pem() {
        let t = run(
            Admin,
            &[
                ("ssl.truststore.location", "/etc/ca.pem"),
                ("ssl.truststore.type", "PEM"),
            ],
        );
        assert_eq!(
            t.properties,
            settings(&[("ssl.ca.location", "/etc/ca.pem")])
        );
        assert!(t.warnings.is_empty());

        // JKS is Java's default type.
        let t = run(
            Admin,
            &[
                ("ssl.truststore.location", "/etc/ts.jks"),
                ("ssl.truststore.password", "s3cret"),
            ],
        );
        // The store is read into PEM here; one that cannot be read stops the client.
        assert!(t.properties.is_empty());
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
        assert_eq!(t.errors.len(), 1, "{:?}", t.errors);
        assert!(
            t.errors[0].contains("'ssl.truststore.location'")
                && t.errors[0].contains("/etc/ts.jks")
        );
        assert!(!t.errors.iter().any(|w| w.contains("s3cret")));
    }

    #[test]
    fn key_store_types() {
        let t = run(
            Producer,
            &[
                ("ssl.keystore.type", "pkcs12"),
                ("ssl.keystore.location", "/etc/client.p12"),
                ("ssl.keystore.password", "s3cret"),
                ("ssl.key.password", "k3y"),
            ],
        );
        assert_eq!(
            explicit(&t),
            vec![
                ("ssl.keystore.location", "/etc/client.p12"),
                ("ssl.keystore.password", "s3cret"),
                ("ssl.key.password", "k3y"),
            ]
        );
        assert!(t.warnings.is_empty());

        let t = run(
            Consumer,
            &[
                ("ssl.keystore.location", "/etc/client.pem"),
                ("ssl.keystore.type", "PEM"),
                ("ssl.key.password", "k3y"),
            ],
        );
        assert_eq!(
            t.properties,
            settings(&[
                ("ssl.certificate.location", "/etc/client.pem"),
                ("ssl.key.location", "/etc/client.pem"),
                ("ssl.key.password", "k3y"),
            ])
        );
        assert!(t.warnings.is_empty());

        let t = run(
            Consumer,
            &[
                ("ssl.keystore.type", "PEM"),
                ("ssl.keystore.password", "s3cret"),
            ],
        );
        // Java does not use a PEM key store's password either.
        assert!(t.properties.is_empty());
        assert!(t.warnings.is_empty() && t.errors.is_empty());

        let t = run(
            Admin,
            &[
                ("ssl.keystore.location", "/etc/ks.jks"),
                ("ssl.keystore.password", "s3cret"),
            ],
        );
        assert!(t.properties.is_empty());
        assert_eq!(t.errors.len(), 1, "{:?}", t.errors);
        assert!(t.errors[0].contains("/etc/ks.jks") && !t.errors[0].contains("s3cret"));
    }

    // --- JAAS ---

    const PLAIN: &str = PLAIN_LOGIN_MODULE;
    const SCRAM: &str = SCRAM_LOGIN_MODULE;

    #[test]
    fn jaas_plain_and_scram_credentials() {
        let cases = [
            format!(r#"{PLAIN} required username="alice" password="p@ss w=rd;";"#),
            format!("{SCRAM} REQUIRED\n  username=alice\n  password=\"p@ss w=rd;\" ;"),
            format!(
                r#"{PLAIN} required /* who */ username="alice" // me
                   password="p@ss w=rd;";"#
            ),
        ];
        for jaas in &cases {
            let t = run(
                Consumer,
                &[("sasl.mechanism", "PLAIN"), ("sasl.jaas.config", jaas)],
            );
            assert_eq!(
                t.properties,
                settings(&[
                    ("sasl.mechanisms", "PLAIN"),
                    ("sasl.username", "alice"),
                    ("sasl.password", "p@ss w=rd;"),
                ]),
                "{jaas}"
            );
            assert!(t.warnings.is_empty(), "{jaas}: {:?}", t.warnings);
        }
    }

    #[test]
    fn jaas_escapes() {
        let jaas = format!(r#"{PLAIN} required username="a\"b" password="c\\d\ne";"#);
        let t = run(Admin, &[("sasl.jaas.config", &jaas)]);
        assert_eq!(get(&t, "sasl.username"), Some("a\"b"));
        assert_eq!(get(&t, "sasl.password"), Some("c\\d\ne"));
    }

    #[test]
    fn jaas_kerberos_and_oauthbearer_modules_translate() {
        let t = run(
            Producer,
            &[(
                "sasl.jaas.config",
                "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true \
                 keyTab=\"/etc/k.keytab\" principal=\"connect@EXAMPLE.COM\";",
            )],
        );
        assert_eq!(get(&t, "sasl.kerberos.keytab"), Some("/etc/k.keytab"));
        assert_eq!(
            get(&t, "sasl.kerberos.principal"),
            Some("connect@EXAMPLE.COM")
        );
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);

        let t = run(
            Consumer,
            &[
                (
                    "sasl.oauthbearer.token.endpoint.url",
                    "https://idp.example/token",
                ),
                (
                    "sasl.login.callback.handler.class",
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
                ),
                (
                    "sasl.jaas.config",
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
                     clientId=\"id\" clientSecret=\"s3cret\" scope=\"kafka\";",
                ),
            ],
        );
        assert_eq!(get(&t, "sasl.oauthbearer.method"), Some("oidc"));
        assert_eq!(
            get(&t, "sasl.oauthbearer.token.endpoint.url"),
            Some("https://idp.example/token")
        );
        assert_eq!(get(&t, "sasl.oauthbearer.client.id"), Some("id"));
        assert_eq!(get(&t, "sasl.oauthbearer.client.secret"), Some("s3cret"));
        assert_eq!(get(&t, "sasl.oauthbearer.scope"), Some("kafka"));
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);

        let t = run(
            Admin,
            &[(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
                 unsecuredLoginStringClaim_sub=\"admin\" mystery=\"s3cret\";",
            )],
        );
        assert_eq!(
            get(&t, "enable.sasl.oauthbearer.unsecure.jwt"),
            Some("true")
        );
        assert_eq!(get(&t, "sasl.oauthbearer.config"), Some("principal=admin"));
        assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
        assert!(t.warnings[0].contains("mystery") && !t.warnings[0].contains("s3cret"));
    }

    #[test]
    fn jaas_unexpected_options_and_missing_credentials_warn() {
        let t = run(
            Admin,
            &[(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required \
                 username=\"alice\" tokenauth=\"true\" serviceName=\"kafka\";",
            )],
        );
        assert_eq!(t.properties, settings(&[("sasl.username", "alice")]));
        assert_eq!(t.warnings.len(), 3, "{:?}", t.warnings);
        assert!(t.warnings[0].contains("tokenauth"));
        assert!(t.warnings[1].contains("'serviceName'"));
        assert!(t.warnings[2].contains("username or password"));
    }

    #[test]
    fn jaas_parse_errors_never_leak_the_text() {
        let cases = [
            String::new(),
            format!(r#"{PLAIN} username="a" password="s3cret";"#),
            format!(r#"{PLAIN} required password="s3cret""#),
            format!(r#"{PLAIN} required password="s3cret;"#),
            format!(r#"{PLAIN} required password "s3cret";"#),
            format!("{PLAIN} required password=s3cret; {PLAIN} required;"),
            format!("{PLAIN} required /* s3cret"),
        ];
        for jaas in &cases {
            let t = run(Consumer, &[("sasl.jaas.config", jaas)]);
            assert!(t.properties.is_empty(), "{jaas}: {t:?}");
            assert_eq!(t.warnings.len(), 1, "{jaas}: {:?}", t.warnings);
            assert!(
                t.warnings[0].contains("could not be parsed"),
                "{:?}",
                t.warnings
            );
            assert!(!t.warnings[0].contains("s3cret"));
        }
    }

    #[test]
    fn jaas_parser_structure() {
        let parsed = parse_jaas("a.B optional x=1 y=\"\";").unwrap();
        assert_eq!(
            parsed,
            LoginModule {
                class: "a.B".to_owned(),
                options: vec![
                    ("x".to_owned(), "1".to_owned()),
                    ("y".to_owned(), String::new())
                ],
            }
        );
    }

    // --- escape hatch, duplicates, table ---

    #[test]
    fn librdkafka_prefix_passes_through_for_any_role() {
        for role in [Producer, Consumer, Admin] {
            let t = run(
                role,
                &[
                    ("librdkafka.queue.buffering.max.messages", "500"),
                    ("librdkafka.debug", "all"),
                ],
            );
            assert_eq!(
                explicit(&t),
                vec![("queue.buffering.max.messages", "500"), ("debug", "all")]
            );
            assert!(t.warnings.is_empty());
        }
    }

    #[test]
    fn librdkafka_prefix_wins_over_translation() {
        let t = run(
            Consumer,
            &[
                ("librdkafka.fetch.wait.max.ms", "100"),
                ("fetch.max.wait.ms", "500"),
            ],
        );
        assert_eq!(t.properties, settings(&[("fetch.wait.max.ms", "100")]));
        assert_eq!(t.warnings.len(), 1);
        assert!(t.warnings[0].contains("'librdkafka.fetch.wait.max.ms'"));

        // Replacing the partitioner default is not a conflict.
        let t = run(Producer, &[("librdkafka.partitioner", "consistent_random")]);
        assert_eq!(
            t.properties,
            settings(&[("partitioner", "consistent_random")])
        );
        assert!(t.warnings.is_empty());
    }

    #[test]
    fn librdkafka_prefix_alone_warns() {
        let t = run(Admin, &[("librdkafka.", "x")]);
        assert!(t.properties.is_empty());
        assert_eq!(t.warnings.len(), 1);
    }

    #[test]
    fn last_occurrence_wins_and_names_are_unique() {
        let t = run(
            Consumer,
            &[
                ("group.id", "first"),
                ("fetch.max.wait.ms", "100"),
                ("group.id", "second"),
                ("fetch.max.wait.ms", "x"),
                ("fetch.max.wait.ms", "200"),
            ],
        );
        assert_eq!(
            t.properties,
            settings(&[("group.id", "second"), ("fetch.wait.max.ms", "200")])
        );
        assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    }

    #[test]
    fn table_is_consistent() {
        for (i, rule) in RULES.iter().enumerate() {
            assert!(rule.roles != 0 && rule.roles & !ALL == 0, "{}", rule.java);
            assert!(!rule.java.starts_with(ESCAPE_PREFIX), "{}", rule.java);
            if let Action::Map(target, _) = rule.action {
                assert!(
                    !target.is_empty() && target.trim() == target,
                    "{}",
                    rule.java
                );
            }
            // A key may have several rules, but only one per role.
            for other in &RULES[i + 1..] {
                assert!(
                    other.java != rule.java || other.roles & rule.roles == 0,
                    "duplicate rule for {}",
                    rule.java
                );
            }
        }
    }
}
