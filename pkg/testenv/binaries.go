package testenv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Versions of the programs an Env runs. Each version is part of the cache
// layout (k8s-v1.33.13/kube-apiserver), so bumping one builds the new binary
// next to the old one instead of silently reusing it.
//
// Kubernetes stays at 1.33 although client-go is newer: the module proxy
// refuses the source zip of 1.37 (measured when the harness was written), and
// the version skew is harmless for every API fedctl uses.
const (
	KubernetesVersion = "v1.33.13"
	EtcdVersion       = "v3.5.21"
	KwokVersion       = "v0.7.0"
)

// TestbinDirEnv names the environment variable that overrides where built
// binaries are cached (default: .cache/testbin in the repository root).
const TestbinDirEnv = "FEDCTL_TESTBIN_DIR"

// Binaries holds the absolute paths of the programs an Env runs.
type Binaries struct {
	Etcd                  string
	KubeAPIServer         string
	KubeControllerManager string
	KubeScheduler         string
	Kwok                  string
}

// buildEnv is appended to the environment of every go command we run. It is
// fixed on purpose: the Go build cache keys on it, so a different setting
// (or an extra flag such as -trimpath) turns a seconds-long relink into a
// full recompile of Kubernetes. GOFLAGS replaces, not extends, whatever the
// caller has set, for the same reason. GOWORK=off keeps a go.work in a
// parent directory from pulling the throwaway module into a workspace.
var buildEnv = []string{"CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOWORK=off"}

// component describes how one binary is built through the Go module proxy:
// a throwaway module that requires module@version and builds pkg.
type component struct {
	name     string // file name of the binary
	dir      string // cache subdirectory, keyed by version
	module   string // throwaway module's own path
	require  string // module that provides pkg
	version  string // version of require
	pkg      string // main package to build
	estimate string // cold build time on 2 cores, for the progress line

	// onDemand components (kubectl, for benchmarks) are built only when
	// asked for by name, so that tests never pay for them.
	onDemand bool

	// staging is set for k8s.io/kubernetes, whose go.mod points its 31
	// k8s.io/* staging modules at ./staging directories. Replace directives
	// of a dependency are ignored, so the throwaway module has to restate
	// each of them against the published v0.x.y module instead.
	staging bool
}

// The module paths match the ones the reference build used, so a build
// cache warmed by it is hit even at link time.
var components = []component{
	{
		name: "kube-apiserver", dir: "k8s-" + KubernetesVersion, module: "fedctl.local/testbin",
		require: "k8s.io/kubernetes", version: KubernetesVersion, pkg: "k8s.io/kubernetes/cmd/kube-apiserver",
		estimate: "3 min", staging: true,
	},
	{
		name: "kube-controller-manager", dir: "k8s-" + KubernetesVersion, module: "fedctl.local/testbin",
		require: "k8s.io/kubernetes", version: KubernetesVersion, pkg: "k8s.io/kubernetes/cmd/kube-controller-manager",
		estimate: "1 min", staging: true,
	},
	{
		name: "kube-scheduler", dir: "k8s-" + KubernetesVersion, module: "fedctl.local/testbin",
		require: "k8s.io/kubernetes", version: KubernetesVersion, pkg: "k8s.io/kubernetes/cmd/kube-scheduler",
		estimate: "10 s", staging: true,
	},
	{
		name: "kubectl", dir: "k8s-" + KubernetesVersion, module: "fedctl.local/testbin",
		require: "k8s.io/kubernetes", version: KubernetesVersion, pkg: "k8s.io/kubernetes/cmd/kubectl",
		estimate: "20 s", staging: true, onDemand: true,
	},
	{
		name: "etcd", dir: "etcd-" + EtcdVersion, module: "fedctl.local/etcd",
		require: "go.etcd.io/etcd/server/v3", version: EtcdVersion, pkg: "go.etcd.io/etcd/server/v3",
		estimate: "40 s",
	},
	{
		name: "kwok", dir: "kwok-" + KwokVersion, module: "fedctl.local/kwok",
		require: "sigs.k8s.io/kwok", version: KwokVersion, pkg: "sigs.k8s.io/kwok/cmd/kwok",
		estimate: "70 s",
	},
}

// EnsureBinaries returns the paths of etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok, building whichever is
// missing from the cache (see TestbinDirEnv) through the Go module proxy.
// A cached binary that is executable is reused without any check, so a
// warm call costs a few stat calls. Builds hold an exclusive lock on the
// cache, so test binaries of several packages calling this at once build
// each binary once. Progress lines go to log (nil discards them).
func EnsureBinaries(ctx context.Context, log io.Writer) (Binaries, error) {
	if log == nil {
		log = io.Discard
	}
	cache, err := cacheDir()
	if err != nil {
		return Binaries{}, err
	}
	bins := binariesIn(cache)
	if err := buildMissing(ctx, cache, log, func(c component) bool { return !c.onDemand }); err != nil {
		return Binaries{}, err
	}
	return bins, nil
}

// EnsureKubectl returns the path of kubectl at KubernetesVersion, building
// it like EnsureBinaries when it is missing (make testbin builds it too).
// Benchmarks compare fedctl with it, and cmd/examples runs the --help
// example that pipes render's output into it.
func EnsureKubectl(ctx context.Context, log io.Writer) (string, error) {
	if log == nil {
		log = io.Discard
	}
	cache, err := cacheDir()
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(components, func(c component) bool { return c.name == "kubectl" })
	if err := buildMissing(ctx, cache, log, func(c component) bool { return c.name == "kubectl" }); err != nil {
		return "", err
	}
	return binaryPath(cache, components[i]), nil
}

// buildMissing builds the components that want selects and cache lacks.
func buildMissing(ctx context.Context, cache string, log io.Writer, want func(component) bool) error {
	if len(missing(cache, want)) == 0 {
		return nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return fmt.Errorf("create test binary cache: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(cache, ".lock"), log)
	if err != nil {
		return err
	}
	defer unlock()

	// Asked again under the lock: whoever held it may have built them.
	b := &builder{cache: cache, log: log, prepared: map[string]bool{}}
	for _, c := range missing(cache, want) {
		if err := b.build(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

func binaryPath(cache string, c component) string {
	return filepath.Join(cache, c.dir, c.name)
}

func binariesIn(cache string) Binaries {
	path := func(name string) string {
		i := slices.IndexFunc(components, func(c component) bool { return c.name == name })
		return binaryPath(cache, components[i])
	}
	return Binaries{
		Etcd:                  path("etcd"),
		KubeAPIServer:         path("kube-apiserver"),
		KubeControllerManager: path("kube-controller-manager"),
		KubeScheduler:         path("kube-scheduler"),
		Kwok:                  path("kwok"),
	}
}

// missing lists the components that want selects and that have no
// executable binary in cache.
func missing(cache string, want func(component) bool) []component {
	var out []component
	for _, c := range components {
		if !want(c) {
			continue
		}
		fi, err := os.Stat(binaryPath(cache, c))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			out = append(out, c)
		}
	}
	return out
}

// cacheDir is $FEDCTL_TESTBIN_DIR, else .cache/testbin in the fedctl
// repository containing the working directory (go test runs in the package
// directory, so every package shares one cache), else the user cache
// directory for a fedctl-testenv binary run outside the repository.
func cacheDir() (string, error) {
	if dir := os.Getenv(TestbinDirEnv); dir != "" {
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find test binary cache: %w", err)
	}
	if root, ok := repoRoot(wd); ok {
		return filepath.Join(root, ".cache", "testbin"), nil
	}
	user, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find test binary cache: not inside the fedctl repository and %w; set %s", err, TestbinDirEnv)
	}
	return filepath.Join(user, "fedctl", "testbin"), nil
}

// repoModule is the module path that identifies the repository root.
const repoModule = "github.com/fedctl/fedctl"

// repoRoot walks up from dir to the directory whose go.mod declares
// repoModule. Other go.mod files on the way (the throwaway build modules,
// a nested tool module) are skipped.
func repoRoot(dir string) (string, bool) {
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modulePath(data) == repoModule {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// modulePath returns the path of the module directive in a go.mod file.
func modulePath(goMod []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(goMod))
	for sc.Scan() {
		fields := strings.Fields(stripComment(sc.Text()))
		if len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`)
		}
	}
	return ""
}

// builder builds components into the cache. prepared remembers which
// throwaway modules already have their go.mod written during this call, so
// the three Kubernetes binaries resolve the staging list once.
type builder struct {
	cache    string
	log      io.Writer
	prepared map[string]bool
}

func (b *builder) build(ctx context.Context, c component) error {
	fmt.Fprintf(b.log, "building %s %s (first use: up to %s)…\n", c.name, c.version, c.estimate)
	start := time.Now()
	src := filepath.Join(b.cache, "src", c.dir)
	if !b.prepared[src] {
		if err := writeBuildModule(ctx, src, c); err != nil {
			return fmt.Errorf("build %s %s: %w", c.name, c.version, err)
		}
		b.prepared[src] = true
	}

	out := binaryPath(b.cache, c)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("build %s %s: %w", c.name, c.version, err)
	}
	// Built under a temporary name and renamed, so an interrupted build
	// never leaves a truncated binary that the next run would trust.
	tmp := fmt.Sprintf("%s.tmp%d", out, os.Getpid())
	args := []string{"build", "-o", tmp}
	if c.staging {
		args = append(args, "-ldflags="+versionLDFlags(c.version))
	}
	cmd, err := goCommand(ctx, src, append(args, c.pkg)...)
	if err != nil {
		return fmt.Errorf("build %s %s: %w", c.name, c.version, err)
	}
	if output, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("build %s %s: go build %s: %w; last output:\n%s", c.name, c.version, c.pkg, err, lastLines(output, 30))
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("build %s %s: %w", c.name, c.version, err)
	}
	fmt.Fprintf(b.log, "built %s %s in %s\n", c.name, c.version, time.Since(start).Round(time.Second))
	return nil
}

// versionLDFlags stamps a Kubernetes version into the binaries the way
// Kubernetes' own build does (hack/lib/version.sh). Without it the API
// servers report v0.0.0-master+$Format:%H$ on /version, which fedctl and
// kubectl would print and version checks would misread. -X acts at link
// time only, so it costs nothing in the build cache.
func versionLDFlags(version string) string {
	major, rest, _ := strings.Cut(strings.TrimPrefix(version, "v"), ".")
	minor, _, _ := strings.Cut(rest, ".")
	var flags []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags,
			"-X "+pkg+".gitVersion="+version,
			"-X "+pkg+".gitMajor="+major,
			"-X "+pkg+".gitMinor="+minor,
			"-X "+pkg+".gitTreeState=clean",
		)
	}
	return strings.Join(flags, " ")
}

// writeBuildModule writes the throwaway module that builds c. Its go.mod is
// regenerated on every build rather than trusted, so a half-written one
// from an interrupted run cannot poison later builds.
func writeBuildModule(ctx context.Context, src string, c component) error {
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	var replaces []string
	if c.staging {
		// The go command looks for go.mod upwards, and with the default
		// cache inside the fedctl repository it would find fedctl's own.
		// A minimal go.mod stops the search here before we ask anything.
		if err := writeFileAtomic(filepath.Join(src, "go.mod"), []byte(goModHeader(c.module))); err != nil {
			return err
		}
		upstream, err := downloadGoMod(ctx, src, c.require, c.version)
		if err != nil {
			return err
		}
		if replaces, err = stagingReplaces(upstream); err != nil {
			return fmt.Errorf("%s@%s go.mod: %w", c.require, c.version, err)
		}
	}
	return writeFileAtomic(filepath.Join(src, "go.mod"), []byte(buildGoMod(c, replaces)))
}

func goModHeader(module string) string {
	return "module " + module + "\n\ngo 1.24\n"
}

// buildGoMod renders the throwaway go.mod: c.require at c.version, plus a
// replace of each staging module by its published version, which for
// Kubernetes v1.X.Y is v0.X.Y.
func buildGoMod(c component, staging []string) string {
	var sb strings.Builder
	sb.WriteString(goModHeader(c.module))
	fmt.Fprintf(&sb, "\nrequire %s %s\n", c.require, c.version)
	if len(staging) > 0 {
		v := stagingVersion(c.version)
		sb.WriteString("\nreplace (\n")
		for _, m := range staging {
			fmt.Fprintf(&sb, "\t%s => %s %s\n", m, m, v)
		}
		sb.WriteString(")\n")
	}
	return sb.String()
}

// stagingVersion maps a Kubernetes version to the version its staging
// modules are published under: v1.33.13 -> v0.33.13.
func stagingVersion(kubernetes string) string {
	return "v0" + strings.TrimPrefix(kubernetes, "v1")
}

// downloadGoMod fetches module@version through the module proxy and
// returns its go.mod. go mod download also fetches the source zip, which
// the build needs next anyway.
func downloadGoMod(ctx context.Context, dir, module, version string) ([]byte, error) {
	cmd, err := goCommand(ctx, dir, "mod", "download", "-json", module+"@"+version)
	if err != nil {
		return nil, err
	}
	// Stdout carries the JSON (with an Error field on failure); stderr
	// only progress lines, kept apart so they can't break the decoding.
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var info struct {
		GoMod string
		Error string
	}
	if err := json.Unmarshal(out, &info); err == nil && info.Error != "" {
		return nil, fmt.Errorf("go mod download %s@%s: %s", module, version, info.Error)
	}
	if runErr == nil && info.GoMod == "" {
		runErr = errors.New("no go.mod path in its output")
	}
	if runErr != nil {
		return nil, fmt.Errorf("go mod download %s@%s: %w; last output:\n%s",
			module, version, runErr, lastLines(append(out, stderr.Bytes()...), 30))
	}
	data, err := os.ReadFile(info.GoMod)
	if err != nil {
		return nil, fmt.Errorf("go mod download %s@%s: %w", module, version, err)
	}
	return data, nil
}

// stagingReplaces returns, sorted, the module paths that a go.mod replaces
// with a directory under ./staging, in either the single-line or the block
// form of the replace directive.
func stagingReplaces(goMod []byte) ([]string, error) {
	var mods []string
	inBlock := false
	sc := bufio.NewScanner(bytes.NewReader(goMod))
	for sc.Scan() {
		line := strings.TrimSpace(stripComment(sc.Text()))
		var directive string
		switch {
		case inBlock && line == ")":
			inBlock = false
			continue
		case inBlock:
			directive = line
		case line == "replace (":
			inBlock = true
			continue
		case strings.HasPrefix(line, "replace "):
			directive = strings.TrimPrefix(line, "replace ")
		default:
			continue
		}
		// "old [version] => new [version]"; only a local path as new counts.
		oldSide, newSide, ok := strings.Cut(directive, "=>")
		if !ok {
			continue
		}
		oldFields, newFields := strings.Fields(oldSide), strings.Fields(newSide)
		if len(oldFields) == 0 || len(newFields) != 1 {
			continue
		}
		if strings.HasPrefix(newFields[0], "./staging/") {
			mods = append(mods, oldFields[0])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(mods) == 0 {
		return nil, errors.New("no replace directives pointing at ./staging found")
	}
	slices.Sort(mods)
	return slices.Compact(mods), nil
}

func stripComment(line string) string {
	if i := strings.Index(line, "//"); i >= 0 {
		return line[:i]
	}
	return line
}

// goCommand prepares the go command in dir with buildEnv.
func goCommand(ctx context.Context, dir string, args ...string) (*exec.Cmd, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to build test binaries: %w", err)
	}
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), buildEnv...)
	return cmd, nil
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place, so readers never see a partial file.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	merr := f.Chmod(0o644) // CreateTemp makes it 0600
	cerr := f.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// lastLines returns at most the last n lines of out.
func lastLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
