//! Every plugin Ferry ships, registered under its Java class name so configs written for Java
//! Connect work unchanged. Aliases follow Java's rules: the simple class name, and for
//! connectors also the simple name without its `Connector` suffix.

use ferry_api::connector::AnyConnector;
use ferry_api::converter::{Converter, HeaderConverter};

/// What a plugin is, as `GET /connector-plugins` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PluginKind {
    Source,
    Sink,
    Converter,
    HeaderConverter,
    Transformation,
    Predicate,
}

impl PluginKind {
    pub fn rest_name(self) -> &'static str {
        match self {
            PluginKind::Source => "source",
            PluginKind::Sink => "sink",
            PluginKind::Converter => "converter",
            PluginKind::HeaderConverter => "header_converter",
            PluginKind::Transformation => "transformation",
            PluginKind::Predicate => "predicate",
        }
    }
}

/// Makes a new connector instance.
pub type ConnectorFactory = std::sync::Arc<dyn Fn() -> AnyConnector + Send + Sync>;

pub struct ConnectorPlugin {
    pub class_name: String,
    pub kind: PluginKind,
    pub version: String,
    pub create: ConnectorFactory,
    /// A Java plugin run by the plugin host: its converters, transforms and predicates run
    /// there with Kafka's own classes, so the worker moves its records as raw bytes.
    pub hosted: bool,
}

impl ConnectorPlugin {
    /// A connector implemented in Rust and run by the worker itself.
    pub fn native(
        class_name: &str,
        kind: PluginKind,
        version: &str,
        create: impl Fn() -> AnyConnector + Send + Sync + 'static,
    ) -> Self {
        ConnectorPlugin {
            class_name: class_name.to_owned(),
            kind,
            version: version.to_owned(),
            create: std::sync::Arc::new(create),
            hosted: false,
        }
    }
}

/// Reads a hosted plugin's `ConfigDef` from the plugin host.
pub type HostedConfigFn = std::sync::Arc<
    dyn Fn() -> Result<ferry_api::config::ConfigDef, ferry_api::ConnectError> + Send + Sync,
>;

/// A converter, header converter, transformation or predicate found on `plugin.path`, listed
/// beside Ferry's own; it runs inside the plugin host for the Java connectors there.
#[derive(Clone)]
pub struct HostedPluginInfo {
    pub class_name: String,
    pub kind: PluginKind,
    pub version: String,
    pub config: HostedConfigFn,
}

pub struct ConverterPlugin {
    pub class_name: &'static str,
    pub create: fn() -> Box<dyn Converter>,
}

pub struct HeaderConverterPlugin {
    pub class_name: &'static str,
    pub create: fn() -> Box<dyn HeaderConverter>,
}

pub struct Registry {
    pub connectors: Vec<ConnectorPlugin>,
    pub converters: Vec<ConverterPlugin>,
    pub header_converters: Vec<HeaderConverterPlugin>,
    pub transformations: Vec<ferry_transforms::TransformPlugin>,
    pub predicates: Vec<ferry_transforms::PredicatePlugin>,
    /// Plugins other than connectors that only the plugin host has.
    pub hosted_others: Vec<HostedPluginInfo>,
    /// The worker's config providers (`config.providers`), which resolve connector configs'
    /// variables for validation, connectors and tasks.
    pub config_transformer: Option<std::sync::Arc<crate::config::providers::ConfigTransformer>>,
    /// The worker's `connector.client.config.override.policy` and raw librdkafka consent.
    pub client_overrides: crate::config::override_policy::ClientOverrides,
    /// The worker's `key.converter`, `value.converter` and `header.converter`, which
    /// validation shows as the connector keys' defaults (KIP-891).
    pub worker_converters: WorkerConverters,
    /// Distributed mode's `exactly.once.source.support=enabled` (`Some(false)` when not), whose
    /// preflight checks validation adds (KIP-618); `None` in standalone mode, which has none.
    pub exactly_once_source: Option<bool>,
}

/// The converters a worker gives connectors that set none.
#[derive(Debug, Clone, Default)]
pub struct WorkerConverters {
    pub key: Option<String>,
    pub value: Option<String>,
    pub header: Option<String>,
}

/// The class name after its package; nested classes keep their `Outer$Inner` form, so
/// `InsertField$Value` works as an alias too.
fn simple_name(class_name: &str) -> &str {
    class_name.rsplit('.').next().unwrap_or(class_name)
}

fn matches_alias(class_name: &str, wanted: &str, strip_suffix: Option<&str>) -> bool {
    if class_name == wanted {
        return true;
    }
    let simple = simple_name(class_name);
    simple == wanted
        || strip_suffix
            .and_then(|s| simple.strip_suffix(s))
            .is_some_and(|pruned| pruned == wanted)
}

macro_rules! converter {
    ($class:expr, $ty:ty) => {
        ConverterPlugin {
            class_name: $class,
            create: || Box::new(<$ty>::default()),
        }
    };
}

macro_rules! header_converter {
    ($class:expr, $ty:ty) => {
        HeaderConverterPlugin {
            class_name: $class,
            create: || Box::new(<$ty>::default()),
        }
    };
}

impl Registry {
    /// The built-in plugins.
    pub fn builtin() -> Self {
        use ferry_converters as conv;
        let connectors = vec![
            ConnectorPlugin::native(
                ferry_file::SOURCE_CLASS_NAME,
                PluginKind::Source,
                ferry_file::VERSION,
                || AnyConnector::Source(Box::<ferry_file::FileStreamSourceConnector>::default()),
            ),
            ConnectorPlugin::native(
                ferry_file::SINK_CLASS_NAME,
                PluginKind::Sink,
                ferry_file::VERSION,
                || AnyConnector::Sink(Box::<ferry_file::FileStreamSinkConnector>::default()),
            ),
            // MirrorMaker 2's connectors (Kafka's connect-mirror jar on plugin.path still runs
            // with ferry.plugin.preference=plugin.path).
            ConnectorPlugin::native(
                ferry_mirror::source_connector::CLASS_NAME,
                PluginKind::Source,
                ferry_api::KAFKA_CONNECT_VERSION,
                || {
                    AnyConnector::Source(
                        Box::<ferry_mirror::source_connector::MirrorSourceConnector>::default(),
                    )
                },
            ),
            ConnectorPlugin::native(
                ferry_mirror::checkpoint_connector::CLASS_NAME,
                PluginKind::Source,
                ferry_api::KAFKA_CONNECT_VERSION,
                || {
                    AnyConnector::Source(Box::<
                        ferry_mirror::checkpoint_connector::MirrorCheckpointConnector,
                    >::default())
                },
            ),
            ConnectorPlugin::native(
                ferry_mirror::heartbeat::CLASS_NAME,
                PluginKind::Source,
                ferry_api::KAFKA_CONNECT_VERSION,
                || {
                    AnyConnector::Source(
                        Box::<ferry_mirror::heartbeat::MirrorHeartbeatConnector>::default(),
                    )
                },
            ),
        ];
        let converters = vec![
            converter!(
                "org.apache.kafka.connect.json.JsonConverter",
                ferry_json::JsonConverter
            ),
            converter!(
                "org.apache.kafka.connect.storage.StringConverter",
                conv::StringConverter
            ),
            converter!(
                "org.apache.kafka.connect.converters.ByteArrayConverter",
                conv::ByteArrayConverter
            ),
            converter!(
                "org.apache.kafka.connect.converters.ShortConverter",
                conv::ShortConverter
            ),
            converter!(
                "org.apache.kafka.connect.converters.IntegerConverter",
                conv::IntegerConverter
            ),
            converter!(
                "org.apache.kafka.connect.converters.LongConverter",
                conv::LongConverter
            ),
            converter!(
                "org.apache.kafka.connect.converters.FloatConverter",
                conv::FloatConverter
            ),
            converter!(
                "org.apache.kafka.connect.converters.DoubleConverter",
                conv::DoubleConverter
            ),
            converter!(
                "org.apache.kafka.connect.converters.BooleanConverter",
                conv::BooleanConverter
            ),
        ];
        let header_converters = vec![
            header_converter!(
                "org.apache.kafka.connect.storage.SimpleHeaderConverter",
                conv::SimpleHeaderConverter
            ),
            header_converter!(
                "org.apache.kafka.connect.json.JsonConverter",
                ferry_json::JsonConverter
            ),
            header_converter!(
                "org.apache.kafka.connect.storage.StringConverter",
                conv::StringConverter
            ),
            header_converter!(
                "org.apache.kafka.connect.converters.ByteArrayConverter",
                conv::ByteArrayConverter
            ),
            // The number and boolean converters are header converters too, as in Java.
            header_converter!(
                "org.apache.kafka.connect.converters.ShortConverter",
                conv::ShortConverter
            ),
            header_converter!(
                "org.apache.kafka.connect.converters.IntegerConverter",
                conv::IntegerConverter
            ),
            header_converter!(
                "org.apache.kafka.connect.converters.LongConverter",
                conv::LongConverter
            ),
            header_converter!(
                "org.apache.kafka.connect.converters.FloatConverter",
                conv::FloatConverter
            ),
            header_converter!(
                "org.apache.kafka.connect.converters.DoubleConverter",
                conv::DoubleConverter
            ),
            header_converter!(
                "org.apache.kafka.connect.converters.BooleanConverter",
                conv::BooleanConverter
            ),
        ];
        Registry {
            connectors,
            converters,
            header_converters,
            transformations: ferry_transforms::transformations(),
            predicates: ferry_transforms::predicates(),
            hosted_others: Vec::new(),
            config_transformer: None,
            client_overrides: Default::default(),
            worker_converters: WorkerConverters::default(),
            exactly_once_source: None,
        }
    }

    /// Every converter class (native and hosted), as validation recommends them.
    pub fn converter_classes(&self, header: bool) -> Vec<String> {
        let (native, kind): (Vec<&str>, PluginKind) = if header {
            let names = self
                .header_converters
                .iter()
                .map(|p| p.class_name)
                .collect();
            (names, PluginKind::HeaderConverter)
        } else {
            let names = self.converters.iter().map(|p| p.class_name).collect();
            (names, PluginKind::Converter)
        };
        let mut classes: Vec<String> = native.into_iter().map(str::to_owned).collect();
        classes.extend(
            self.hosted_others
                .iter()
                .filter(|p| p.kind == kind)
                .map(|p| p.class_name.clone()),
        );
        classes.sort();
        classes.dedup();
        classes
    }

    /// Adds what the plugin host found on `plugin.path`. A connector class Ferry also has
    /// natively runs natively unless `prefer_hosted`; other plugins Ferry has are not listed twice.
    pub fn add_hosted(
        &mut self,
        connectors: Vec<ConnectorPlugin>,
        others: Vec<HostedPluginInfo>,
        prefer_hosted: bool,
    ) {
        for plugin in connectors {
            match self
                .connectors
                .iter()
                .position(|p| p.class_name == plugin.class_name)
            {
                Some(i) if prefer_hosted => self.connectors[i] = plugin,
                Some(_) => {}
                None => self.connectors.push(plugin),
            }
        }
        for info in others {
            let native = match info.kind {
                PluginKind::Converter => self.converter(&info.class_name).is_some(),
                PluginKind::HeaderConverter => self.header_converter(&info.class_name).is_some(),
                PluginKind::Transformation => self.transformation(&info.class_name).is_some(),
                PluginKind::Predicate => self.predicate(&info.class_name).is_some(),
                PluginKind::Source | PluginKind::Sink => true,
            };
            if !native {
                self.hosted_others.push(info);
            }
        }
    }

    /// A converter, header converter, transformation or predicate only the plugin host has, by
    /// class name or alias.
    pub fn hosted_other(&self, name: &str) -> Option<&HostedPluginInfo> {
        self.hosted_others
            .iter()
            .find(|p| p.class_name == name)
            .or_else(|| {
                self.hosted_others
                    .iter()
                    .find(|p| matches_alias(&p.class_name, name, None))
            })
    }

    /// The problems of a connector config's client overrides under the worker's policy:
    /// `(full key, message)`.
    pub fn override_problems(&self, config: &ferry_api::ConfigMap) -> Vec<(String, String)> {
        use crate::config::override_policy::OVERRIDE_PREFIXES;
        let mut out = Vec::new();
        for k in config.keys() {
            let Some(key) = OVERRIDE_PREFIXES.iter().find_map(|p| k.strip_prefix(p)) else {
                continue;
            };
            if let Some(problem) = self.client_overrides.problem(key) {
                out.push((k.clone(), problem));
            }
        }
        out
    }

    /// `config` with its provider variables resolved (unchanged without providers).
    pub fn resolve(&self, config: &ferry_api::ConfigMap) -> ferry_api::ConfigMap {
        match &self.config_transformer {
            Some(t) => t.transform(config),
            None => config.clone(),
        }
    }

    pub fn connector(&self, name: &str) -> Option<&ConnectorPlugin> {
        self.connectors
            .iter()
            .find(|p| matches_alias(&p.class_name, name, Some("Connector")))
    }

    pub fn converter(&self, name: &str) -> Option<&ConverterPlugin> {
        self.converters
            .iter()
            .find(|p| matches_alias(p.class_name, name, None))
    }

    pub fn transformation(&self, name: &str) -> Option<&ferry_transforms::TransformPlugin> {
        self.transformations
            .iter()
            .find(|p| matches_alias(p.class_name, name, None))
    }

    pub fn predicate(&self, name: &str) -> Option<&ferry_transforms::PredicatePlugin> {
        self.predicates
            .iter()
            .find(|p| matches_alias(p.class_name, name, None))
    }

    pub fn header_converter(&self, name: &str) -> Option<&HeaderConverterPlugin> {
        self.header_converters
            .iter()
            .find(|p| matches_alias(p.class_name, name, None))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connectors_resolve_by_class_name_and_aliases() {
        let r = Registry::builtin();
        for name in [
            "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "FileStreamSourceConnector",
            "FileStreamSource",
        ] {
            assert_eq!(
                r.connector(name).map(|p| p.kind),
                Some(PluginKind::Source),
                "{name}"
            );
        }
        assert_eq!(
            r.connector("FileStreamSink").map(|p| p.kind),
            Some(PluginKind::Sink)
        );
        assert!(r.connector("FileStream").is_none());
        assert!(r.connector("com.example.Missing").is_none());
    }

    #[test]
    fn converters_resolve_by_class_and_simple_name() {
        let r = Registry::builtin();
        assert!(r
            .converter("org.apache.kafka.connect.json.JsonConverter")
            .is_some());
        assert!(r.converter("StringConverter").is_some());
        assert!(r
            .header_converter("org.apache.kafka.connect.storage.SimpleHeaderConverter")
            .is_some());
    }
}
