package testenv

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// killWait bounds the wait for a SIGKILLed process to be reaped. It only
// runs out for a process stuck in the kernel (uninterruptible sleep).
const killWait = 5 * time.Second

// process is one child program (etcd, a kube-apiserver, a controller) that
// can be started, stopped and started again with the same arguments. Its
// output is appended to logPath, each run after a header line, so the log
// of a restarted API server shows both lives.
//
// A process is not safe for concurrent use; Env serialises access.
type process struct {
	name    string // for messages: "cluster1 kube-apiserver"
	path    string
	args    []string
	env     []string // added to this process's environment
	logPath string

	run *run // nil until the first start
}

// run is one execution of a process.
type run struct {
	cmd       *exec.Cmd
	logOffset int64         // where this run's output starts in the log
	done      chan struct{} // closed once the process has been reaped
	err       error         // Wait's result; read only after done is closed
}

// start launches the process in the background.
func (p *process) start() error {
	f, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	// The child writes through its own copy of the descriptor, so ours is
	// closed as soon as the child has it.
	defer f.Close()
	offset, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	fmt.Fprintf(f, "=== %s %s %s\n", time.Now().Format(time.RFC3339), p.path, strings.Join(p.args, " "))

	cmd := exec.Command(p.path, p.args...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	r := &run{cmd: cmd, logOffset: offset, done: make(chan struct{})}
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	p.run = r
	return nil
}

// running reports whether the process has been started and not yet exited.
func (p *process) running() bool {
	if p.run == nil {
		return false
	}
	select {
	case <-p.run.done:
		return false
	default:
		return true
	}
}

// pid returns the process id of the current or last run, or 0.
func (p *process) pid() int {
	if p.run == nil {
		return 0
	}
	return p.run.cmd.Process.Pid
}

// exitStatus describes how the last run ended ("exit status 1", "signal:
// killed"); call it only when !running().
func (p *process) exitStatus() string {
	if p.run == nil || p.run.err == nil {
		return "exit status 0"
	}
	return p.run.err.Error()
}

// stop sends SIGTERM so the program can shut down cleanly, then SIGKILL if
// it has not exited after grace. A process that is not running is left
// alone.
func (p *process) stop(grace time.Duration) error {
	if !p.running() {
		return nil
	}
	// A failed SIGTERM (the platform cannot send it) still ends in SIGKILL.
	if err := signalChild(p.run.cmd.Process, syscall.SIGTERM); err == nil {
		select {
		case <-p.run.done:
			return nil
		case <-time.After(grace):
		}
	}
	return p.kill()
}

// kill sends SIGKILL and waits until the process has been reaped.
func (p *process) kill() error {
	if !p.running() {
		return nil
	}
	if err := signalChild(p.run.cmd.Process, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s (pid %d): %w", p.name, p.pid(), err)
	}
	select {
	case <-p.run.done:
		return nil
	case <-time.After(killWait):
		return fmt.Errorf("kill %s (pid %d): still not reaped after %s", p.name, p.pid(), killWait)
	}
}

// logTail returns the last lines the current or last run wrote.
func (p *process) logTail() string {
	return lastLines(p.output(), 25)
}

// lostPort reports whether the last run died because its listening port
// was taken, which happens when another process grabbed a port between
// our probe and the child's bind (see freePort).
func (p *process) lostPort() bool {
	return !p.running() && strings.Contains(string(p.output()), "address already in use")
}

// output returns what the current or last run wrote to the log.
func (p *process) output() []byte {
	if p.run == nil {
		return nil
	}
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return []byte(fmt.Sprintf("(cannot read %s: %v)", p.logPath, err))
	}
	if p.run.logOffset <= int64(len(data)) {
		data = data[p.run.logOffset:]
	}
	return data
}
