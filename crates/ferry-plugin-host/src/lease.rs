//! A connector's or task's hold on the host process it runs in. With one host per connector
//! (`ferry.plugin.host.per.connector`), the connector's own host ends once nothing holds it any
//! more, after a grace period that lets its last frames (acknowledgements, closes) through and
//! lets a restart reuse it.

use std::ops::Deref;
use std::sync::Arc;

use crate::connection::Connection;
use crate::host::PluginHost;

pub(crate) struct HostLease {
    conn: Arc<Connection>,
    /// The connector whose own host this is; `None` for the worker's shared host.
    scope: Option<String>,
    host: Arc<PluginHost>,
}

impl HostLease {
    pub(crate) fn new(conn: Arc<Connection>, scope: Option<String>, host: Arc<PluginHost>) -> Self {
        HostLease { conn, scope, host }
    }
}

impl Deref for HostLease {
    type Target = Arc<Connection>;

    fn deref(&self) -> &Arc<Connection> {
        &self.conn
    }
}

impl Drop for HostLease {
    fn drop(&mut self) {
        if let Some(scope) = self.scope.take() {
            self.host.release(&scope);
        }
    }
}
