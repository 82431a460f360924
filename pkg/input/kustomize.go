package input

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/fedctl/fedctl/pkg/parallel"
)

// build runs krusty on dir in a goroutine of its own, so that the end of
// ctx (Ctrl-C) ends the wait: krusty's Run takes no context, and a build
// can take long (a remote base cloned with git, a file on a network mount
// that hangs). When ctx ends first, build returns ctx.Err() and the build
// is left to finish in the background, its result and its warnings
// dropped; fedctl is on its way out by then, and a later build in the same
// process waits for it (builds take turns, see captureOutput). A panic of
// the build is raised again here, as fedctl's other goroutines' are
// (parallel).
func build(ctx context.Context, fs *originFS, dir string, warnings io.Writer) (resmap.ResMap, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &warningWriter{w: warnings, fs: fs}
	type result struct {
		m     resmap.ResMap
		err   error
		panic *parallel.Panic
	}
	done := make(chan result, 1) // the build never blocks on a caller gone
	go func() {
		var r result
		defer func() { done <- r }()
		defer parallel.Recover(func(p *parallel.Panic) { r.panic = p })
		r.err = captureOutput(out, func() (err error) {
			r.m, err = krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, dir)
			return err
		})
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			panic(r.panic)
		}
		return r.m, r.err
	case <-ctx.Done():
		out.drop()
		return nil, ctx.Err()
	}
}

// captured makes builds take turns at captureOutput: os.Stderr and the
// standard logger are the process's.
var captured sync.Mutex

// captureOutput runs build with os.Stderr and the standard logger writing
// to out, and puts both back when it returns (or panics). kustomize takes
// no writer for its warnings: it prints a kustomization's deprecated
// fields with fmt.Fprintf(os.Stderr, ...) (KustTarget.Load in
// api/internal/target/kusttarget.go) and other warnings with log.Printf
// (vars never replaced, a sort order set twice), and left alone both
// would reach the user's terminal raw, "# Warning: ...", amid fedctl's
// output.
//
// Both are process-wide: builds take turns, and anything else in the
// process that writes through os.Stderr or the standard logger during a
// build is taken for kustomize's. In fedctl nothing does: -k is read
// before any member is contacted, and IOStreams and klog (cmd/klog.go)
// hold the *os.File they were given, not the variable os.Stderr. A
// test that reads os.Stderr while another builds a kustomization races
// with the swap.
func captureOutput(out *warningWriter, build func() error) error {
	captured.Lock()
	defer captured.Unlock()
	r, w, err := os.Pipe()
	if err != nil {
		return build() // kustomize's lines reach stderr as they are, rather than no build
	}
	synced := make(chan struct{}, 1)
	var g parallel.Group
	g.Go(func() {
		out.read(r, synced)
		_ = r.Close()
	})
	stderr, logOut, logFlags, logPrefix := os.Stderr, log.Writer(), log.Flags(), log.Prefix()
	os.Stderr = w
	log.SetOutput(&logWriter{pipe: w, synced: synced})
	log.SetFlags(0) // no date: the lines become fedctl's warnings
	log.SetPrefix("")
	defer func() {
		os.Stderr = stderr
		log.SetOutput(logOut)
		log.SetFlags(logFlags)
		log.SetPrefix(logPrefix)
		_ = w.Close()
		g.Wait() // the last lines are read
		out.flush()
	}()
	return build()
}

// syncMarker is a line kustomize never prints: logWriter writes it after
// each line of the logger, and the pipe's reader says when it is through.
const syncMarker = "\x00fedctl: sync\x00\n"

// logWriter is the standard logger's output during a build. Its lines go
// through the pipe that os.Stderr writes to, so that they keep their order
// with kustomize's other lines, and Write returns once the reader has made
// a warning of them: log.Fatal exits the process right after its line,
// which must not be left unread in the pipe.
type logWriter struct {
	pipe   *os.File
	synced <-chan struct{}
}

func (l *logWriter) Write(p []byte) (int, error) {
	if _, err := l.pipe.Write(append(bytes.Clone(p), syncMarker...)); err != nil {
		return 0, err
	}
	<-l.synced
	return len(p), nil
}

// read turns what comes through the pipe r into warnings until r ends,
// saying on synced when a syncMarker has come through.
func (ww *warningWriter) read(r io.Reader, synced chan<- struct{}) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if before, ok := strings.CutSuffix(line, syncMarker); ok {
			_, _ = ww.Write([]byte(before))
			synced <- struct{}{}
		} else if line != "" {
			_, _ = ww.Write([]byte(line))
		}
		if err != nil {
			return
		}
	}
}

// warningWriter turns what kustomize writes, line by line, into fedctl's
// warnings on w: "warning: kustomization DIR: MESSAGE", with kustomize's
// "# Warning: " taken off.
type warningWriter struct {
	fs *originFS

	mu      sync.Mutex
	w       io.Writer // nil: dropped
	partial []byte
}

func (ww *warningWriter) Write(p []byte) (int, error) {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	ww.partial = append(ww.partial, p...)
	for {
		i := bytes.IndexByte(ww.partial, '\n')
		if i < 0 {
			break
		}
		ww.emit(string(ww.partial[:i]))
		ww.partial = ww.partial[i+1:]
	}
	return len(p), nil
}

// flush writes a last line that has no newline.
func (ww *warningWriter) flush() {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	ww.emit(string(ww.partial))
	ww.partial = nil
}

// drop stops the writing to w: the caller has returned and may be
// writing to w itself.
func (ww *warningWriter) drop() {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	ww.w = nil
}

func (ww *warningWriter) emit(line string) {
	line = strings.TrimSpace(line)
	if line == "" || ww.w == nil {
		return
	}
	msg := strings.TrimPrefix(strings.TrimPrefix(line, "# "), "Warning: ")
	fmt.Fprintf(ww.w, "warning: kustomization %s: %s\n", ww.fs.kustomizationOf(line), msg)
}

// deprecation is a deprecation notice kustomize is to print for the
// kustomization in dir (as the user would name it).
type deprecation struct {
	dir, notice string
	printed     bool
}

// noteDeprecations notes the notices kustomize prints for the
// kustomization file at path, read as data: those of
// types.Kustomization.CheckDeprecatedFields, which KustTarget.Load prints
// right after it reads the file. A file kustomize cannot decode is left to
// kustomize to report.
func (f *originFS) noteDeprecations(path string, data []byte) {
	var k types.Kustomization
	if k.Unmarshal(data) != nil {
		return
	}
	notices := k.CheckDeprecatedFields()
	if notices == nil || len(*notices) == 0 {
		return
	}
	dir := filepath.Dir(path)
	if f.root != "" {
		if rel, err := filepath.Rel(f.root, dir); err == nil {
			dir = filepath.Join(f.dir, rel)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range *notices {
		f.deprecation = append(f.deprecation, deprecation{dir: dir, notice: n})
	}
}

// kustomizationOf is the kustomization a line kustomize printed is about:
// for a deprecation notice, the first kustomization read with that notice
// not yet printed (kustomize reads a kustomization, then prints its
// notices, one at a time); for any other line, -k's directory.
func (f *originFS) kustomizationOf(line string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.deprecation {
		if d := &f.deprecation[i]; !d.printed && d.notice == line {
			d.printed = true
			return d.dir
		}
	}
	return f.dir
}
