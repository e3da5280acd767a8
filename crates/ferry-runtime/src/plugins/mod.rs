//! The one explicit registry of built-in plugins, looked up by Java class name or alias.

mod registry;

pub use registry::{
    ConnectorFactory, ConnectorPlugin, ConverterPlugin, HeaderConverterPlugin, HostedPluginInfo,
    PluginKind, Registry, WorkerConverters,
};
