//! The `--cloud` file of `murano env`, `murano deploy` and `murano api
//! serve`, as far as the engine's offline host is concerned (the forms
//! read the rest of it through murano-ui).

use std::path::Path;

use murano_engine::host::OfflineOptions;

/// The offline cloud's answers from `--cloud`: the cloud description YAML
/// (or JSON) that `murano ui --cloud` reads too; its `host` mapping sets
/// what the engine's offline host answers (`project_id`, `user_id`,
/// `fixed_ip`, `floating_ip`, `router`, `external_network`, `dns`), the
/// other keys (flavors, images, keypairs, zones, networks) are the forms'.
/// `murano deploy --cloud` reads it too.
pub(crate) fn offline(cloud: Option<&Path>) -> Result<OfflineOptions, String> {
    let mut o = OfflineOptions::default();
    let Some(path) = cloud else { return Ok(o) };
    let bytes = crate::files::read_capped(path, 16 << 20)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .ok_or_else(|| format!("{}: larger than 16 MiB", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let doc = murano_yaml::load_manifest(&text, &Default::default())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let Some(host) = doc.as_ref().and_then(|d| d.value.get("host")) else {
        return Ok(o);
    };
    let Some(map) = host.value.as_map() else {
        return Err(format!("{}: host: expected a mapping", path.display()));
    };
    for (k, v) in map {
        let key = k.value.python_str();
        let value = v.value.python_str();
        match key.as_str() {
            "project_id" => o.project_id = value,
            "user_id" => o.user_id = value,
            "fixed_ip" => o.fixed_ip = value,
            "floating_ip" => o.floating_ip = value,
            "router" => o.router = value,
            "external_network" => o.external_network = value,
            "dns" => match &v.value {
                murano_yaml::Value::Seq(items) => {
                    o.dns = items.iter().map(|i| i.value.python_str()).collect()
                }
                _ => return Err(format!("{}: host: dns must be a list", path.display())),
            },
            other => return Err(format!("{}: host: unknown key {other}", path.display())),
        }
    }
    Ok(o)
}
