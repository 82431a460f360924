package iostreams

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/fatih/color"
)

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // data that scripts parse
	ErrOut io.Writer // progress, warnings and summaries

	stdinTTY, stdoutTTY, stderrTTY bool
	colorMode                      string
}

// System returns the process's streams with their terminal status detected.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
		colorMode: "auto",
	}
}

// Test returns streams backed by buffers, with no terminal and no colour.
// Out and ErrOut take one write at a time, as a file does: a command's
// goroutines (one per member, client-go's logs, the request log) write to
// them at once, and a bytes.Buffer alone would lose lines. Read the buffers
// once the command has returned.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: &lockedWriter{w: out}, ErrOut: &lockedWriter{w: errOut}, colorMode: "auto"}, in, out, errOut
}

// lockedWriter serialises the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// SetTTY marks the streams as terminals or not; tests use it to see what a
// person at a terminal would see.
func (s *IOStreams) SetTTY(tty bool) { s.stdinTTY, s.stdoutTTY, s.stderrTTY = tty, tty, tty }

// IsStdoutTTY reports whether Out is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether ErrOut is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// IsStdinTTY reports whether In is a terminal, i.e. whether prompting is
// possible.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// SetColorMode sets --color: auto (colour on a terminal), always or never.
// NO_COLOR, when set and not empty, turns colour off whatever the mode
// (https://no-color.org).
func (s *IOStreams) SetColorMode(mode string) error {
	switch mode {
	case "auto", "always", "never":
		s.colorMode = mode
		return nil
	}
	return fmt.Errorf("--color must be auto, always or never, got %q", mode)
}

func (s *IOStreams) colorFor(tty bool) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	switch s.colorMode {
	case "always":
		return true
	case "never":
		return false
	}
	return tty
}

// ColorScheme colours text written to Out.
func (s *IOStreams) ColorScheme() *ColorScheme { return newColorScheme(s.colorFor(s.stdoutTTY)) }

// ErrColorScheme colours text written to ErrOut.
func (s *IOStreams) ErrColorScheme() *ColorScheme { return newColorScheme(s.colorFor(s.stderrTTY)) }

// ColorScheme wraps text in colours when enabled and returns it unchanged
// otherwise. Each scheme switches its own colours, so nothing touches
// fatih/color's global switch.
type ColorScheme struct {
	enabled                  bool
	green, red, yellow, bold *color.Color
}

// NoColor is a ColorScheme that colours nothing, for output that is not
// for a terminal.
func NoColor() *ColorScheme { return newColorScheme(false) }

func newColorScheme(enabled bool) *ColorScheme {
	cs := &ColorScheme{
		enabled: enabled,
		green:   color.New(color.FgGreen),
		red:     color.New(color.FgRed),
		yellow:  color.New(color.FgYellow),
		bold:    color.New(color.Bold),
	}
	for _, c := range []*color.Color{cs.green, cs.red, cs.yellow, cs.bold} {
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return cs
}

// Enabled reports whether the scheme colours text.
func (cs *ColorScheme) Enabled() bool { return cs.enabled }

// Green colours s green.
func (cs *ColorScheme) Green(s string) string { return cs.green.Sprint(s) }

// Red colours s red.
func (cs *ColorScheme) Red(s string) string { return cs.red.Sprint(s) }

// Yellow colours s yellow.
func (cs *ColorScheme) Yellow(s string) string { return cs.yellow.Sprint(s) }

// Bold makes s bold.
func (cs *ColorScheme) Bold(s string) string { return cs.bold.Sprint(s) }

// SuccessIcon is a green check mark.
func (cs *ColorScheme) SuccessIcon() string { return cs.Green("✓") }

// FailureIcon is a red cross.
func (cs *ColorScheme) FailureIcon() string { return cs.Red("✗") }

// WarningIcon is a yellow exclamation mark.
func (cs *ColorScheme) WarningIcon() string { return cs.Yellow("!") }
