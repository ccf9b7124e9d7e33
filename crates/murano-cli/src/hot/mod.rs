//! `murano hot`: make a Heat.HOT package from a Heat template, or
//! (`murano hot validate`) check a template as Heat itself would.

mod validate;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use murano_packages::source::FileMap;
use murano_packages::PluginRegistry;
use murano_yaml::{load_manifest, LoadOptions};

/// Make a Heat.HOT package from a HOT template: the manifest (as
/// `murano package-create --template` writes it), the template, and
/// optional HotFiles and HotEnvironments.
///
/// Examples:
///
///   murano hot stack.yaml -o stack.zip
///
///   murano hot stack.yaml -o out/ --files files/ --environments envs/
///
/// The package is loaded back before it is written, so a template Murano
/// cannot translate is refused here.
///
///   murano hot validate stack.yaml [--params values.yaml] [--format json]
///
/// checks the template as Heat 27 would (see `murano hot validate --help`).
#[derive(Args)]
#[command(
    verbatim_doc_comment,
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true
)]
pub(crate) struct HotArgs {
    #[command(subcommand)]
    action: Option<HotAction>,
    /// The Heat template.
    #[arg(required = true)]
    template: Option<PathBuf>,
    /// Where to write: a .zip file or a directory.
    #[arg(short, long, value_name = "OUT", required = true)]
    output: Option<PathBuf>,
    /// FullName (default io.murano.apps.generated.<CamelCasedFileName>).
    #[arg(long)]
    full_name: Option<String>,
    /// Display name (default: the full name's last part).
    #[arg(long)]
    name: Option<String>,
    /// Files the template refers to (become Resources/HotFiles/).
    #[arg(long, value_name = "DIR")]
    files: Option<PathBuf>,
    /// Environment files (become Resources/HotEnvironments/).
    #[arg(long, value_name = "DIR")]
    environments: Option<PathBuf>,
}

fn camel(stem: &str) -> String {
    stem.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
                .collect::<String>()
        })
        .collect()
}

/// Largest template, file or environment read (the YAML loader's own
/// input limit is 16 MiB).
const MAX_FILE_SIZE: u64 = 16 << 20;
/// Largest total read from `--files` and `--environments`.
const MAX_TOTAL_SIZE: u64 = 256 << 20;

/// Adds the regular files under `dir` as `prefix/…`. Symbolic links are
/// skipped and said so (as `murano check` does): a link could point out
/// of the folder or loop; the walk and the bytes read are bounded.
fn add_dir(files: &mut FileMap, dir: &Path, prefix: &str, total: &mut u64) -> Result<(), Failure> {
    let found = crate::files::walk(dir, |rel| {
        eprintln!("murano: skipping symbolic link {}", dir.join(rel).display());
    })
    .map_err(Failure::Io)?;
    for f in found.into_iter().filter(|f| !f.is_dir) {
        let left = MAX_TOTAL_SIZE.saturating_sub(*total);
        let bytes = crate::files::read_capped(&f.path, MAX_FILE_SIZE.min(left))
            .map_err(|e| Failure::Io(format!("{}: {e}", f.path.display())))?
            .ok_or_else(|| {
                Failure::Io(format!(
                    "{}: larger than {MAX_FILE_SIZE} bytes, or the files together larger than {MAX_TOTAL_SIZE}",
                    f.path.display()
                ))
            })?;
        *total += bytes.len() as u64;
        files
            .insert(&format!("{prefix}/{}", f.rel), bytes)
            .map_err(|e| Failure::Io(e.to_string()))?;
    }
    Ok(())
}

#[derive(clap::Subcommand)]
enum HotAction {
    Validate(validate::ValidateArgs),
}

/// Why no package was written: a usage or I/O problem (exit status 2),
/// or a template Murano cannot use (1).
enum Failure {
    Io(String),
    Refused(String),
}

fn build(args: &HotArgs, template_path: &Path) -> Result<FileMap, Failure> {
    let template = crate::files::read_capped(template_path, MAX_FILE_SIZE)
        .map_err(|e| Failure::Io(format!("{}: {e}", template_path.display())))?
        .ok_or_else(|| {
            Failure::Io(format!(
                "{}: larger than {MAX_FILE_SIZE} bytes",
                template_path.display()
            ))
        })?;
    let text = String::from_utf8(template.clone())
        .map_err(|e| Failure::Refused(format!("{}: {e}", template_path.display())))?;
    let doc = load_manifest(&text, &LoadOptions::default())
        .map_err(|e| Failure::Refused(format!("{}: {e}", template_path.display())))?;
    let description = doc
        .as_ref()
        .and_then(|d| d.value.get("description"))
        .map(|d| d.value.python_str())
        .unwrap_or_default();
    let stem = template_path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("Template");
    let full_name = args
        .full_name
        .clone()
        .unwrap_or_else(|| format!("io.murano.apps.generated.{}", camel(stem)));
    let name = args.name.clone().unwrap_or_else(|| {
        full_name
            .rsplit('.')
            .next()
            .unwrap_or(&full_name)
            .to_owned()
    });
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let manifest = format!(
        "Format: Heat.HOT/1.0\nType: Application\nFullName: {}\nName: {}\nDescription: {}\nAuthor: ''\nTags: []\n",
        quote(&full_name),
        quote(&name),
        quote(description.trim())
    );
    let mut files = FileMap::new();
    let refused = |e: &dyn std::fmt::Display| Failure::Refused(e.to_string());
    files
        .insert("manifest.yaml", manifest.into_bytes())
        .map_err(|e| refused(&e))?;
    files
        .insert("template.yaml", template)
        .map_err(|e| refused(&e))?;
    let mut total = 0;
    if let Some(dir) = &args.files {
        add_dir(&mut files, dir, "Resources/HotFiles", &mut total)?;
    }
    if let Some(dir) = &args.environments {
        add_dir(&mut files, dir, "Resources/HotEnvironments", &mut total)?;
    }
    // Load it back: Murano must be able to translate it.
    let package = PluginRegistry::with_builtins()
        .load(files.clone())
        .map_err(|e| refused(&e))?;
    package
        .get_class(package.full_name())
        .map_err(|e| refused(&e))?;
    package.ui().map_err(|e| refused(&e))?;
    Ok(files)
}

/// Refuses to write through a symbolic link: every existing part of
/// `target` below `root` (and `root` itself when it is the file written)
/// must not be a link, so nothing lands outside the output path.
fn refuse_links(root: &Path, target: &Path) -> Result<(), Failure> {
    let mut at = root.to_owned();
    let rel = target.strip_prefix(root).unwrap_or(target);
    for part in rel.components() {
        at.push(part);
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Failure::Io(format!(
                "{}: is a symbolic link; refusing to write through it",
                at.display()
            )));
        }
    }
    Ok(())
}

fn write(files: &FileMap, output: &Path) -> Result<(), Failure> {
    use murano_packages::source::PackageSource;
    let io = |at: &Path, e: &dyn std::fmt::Display| Failure::Io(format!("{}: {e}", at.display()));
    let is_zip = output.extension().is_some_and(|e| e == "zip");
    if is_zip {
        if std::fs::symlink_metadata(output).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Failure::Io(format!(
                "{}: is a symbolic link; refusing to write through it",
                output.display()
            )));
        }
        let file = std::fs::File::create(output).map_err(|e| io(output, &e))?;
        let mut zip = zip::ZipWriter::new(file);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for path in files.paths() {
            zip.start_file(path, options).map_err(|e| io(output, &e))?;
            zip.write_all(files.read(path).unwrap_or_default())
                .map_err(|e| io(output, &e))?;
        }
        zip.finish().map_err(|e| io(output, &e))?;
    } else {
        // Check every target first: nothing is written when one of them
        // would go through a link.
        for path in files.paths() {
            refuse_links(output, &output.join(path))?;
        }
        for path in files.paths() {
            let target = output.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io(parent, &e))?;
            }
            refuse_links(output, &target)?;
            std::fs::write(&target, files.read(path).unwrap_or_default())
                .map_err(|e| io(&target, &e))?;
        }
    }
    Ok(())
}

pub(crate) fn run(args: &HotArgs) -> ExitCode {
    if let Some(HotAction::Validate(v)) = &args.action {
        return validate::run(v);
    }
    let (Some(template), Some(output)) = (&args.template, &args.output) else {
        eprintln!("murano: a template and --output are required");
        return ExitCode::from(2);
    };
    match build(args, template).and_then(|files| write(&files, output)) {
        Ok(()) => {
            eprintln!("wrote {}", output.display());
            ExitCode::SUCCESS
        }
        Err(Failure::Io(e)) => {
            eprintln!("murano: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Refused(e)) => {
            eprintln!("murano: {e}");
            ExitCode::from(1)
        }
    }
}
