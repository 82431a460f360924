package examples

import (
	"bufio"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/cmd"
	"github.com/fedctl/fedctl/pkg/iostreams"
)

// helpExamples returns the command lines of every Example in the command
// tree, each mapped to the command whose help shows it. Blank lines and
// comments (#) are left out; a line ending in a backslash is joined with
// the next.
func helpExamples(t *testing.T) map[string]string {
	t.Helper()
	ios, _, _, _ := iostreams.Test()
	root := cmd.NewRootCmd(ios, "fedctl")
	// help and completion are added when the root runs; add them now, so
	// that their examples, should they get any, are not missed
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	lines := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var pending string
		for l := range strings.SplitSeq(c.Example, "\n") {
			l = strings.TrimSpace(l)
			if pending != "" {
				l = pending + " " + l
				pending = ""
			}
			if cont, ok := strings.CutSuffix(l, `\`); ok {
				pending = strings.TrimSpace(cont)
				continue
			}
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			lines[l] = c.CommandPath()
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return lines
}

// trailingComment is a shell comment after a command in README.md.
var trailingComment = regexp.MustCompile(`\s+#.*$`)

// readmeCommands returns the lines of README.md's fenced blocks that start
// with "fedctl ", without their trailing comments, each once.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	f, err := os.Open("../../README.md")
	require.NoError(t, err)
	defer f.Close()
	var cmds []string
	fenced := false
	s := bufio.NewScanner(f)
	for s.Scan() {
		l := strings.TrimSpace(s.Text())
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if c := trailingComment.ReplaceAllString(l, ""); fenced && strings.HasPrefix(l, "fedctl ") && !slices.Contains(cmds, c) {
			cmds = append(cmds, c)
		}
	}
	require.NoError(t, s.Err())
	require.False(t, fenced, "README.md has a fenced block that is never closed")
	return cmds
}

// stepLines returns the lines the steps run.
func stepLines() map[string]bool {
	lines := map[string]bool{}
	for _, s := range steps {
		if s.line != "" {
			lines[s.line] = true
		}
	}
	return lines
}

// TestHelpExamplesAreAllInTheTable: every example of every command's help
// is a step of TestHelpExamples, and every step's line is still an
// example or a README command, so that the table cannot go stale in
// either direction. It needs no cluster.
func TestHelpExamplesAreAllInTheTable(t *testing.T) {
	examples := helpExamples(t)
	require.NotEmpty(t, examples, "the command tree has examples")
	lines := stepLines()
	for _, l := range slices.Sorted(maps.Keys(examples)) {
		if !lines[l] {
			t.Errorf("the example %q of %q is not run: add a step for it to steps in cmd/examples/steps_test.go", l, examples[l])
		}
	}
	readme := readmeCommands(t)
	for l := range lines {
		_, inHelp := examples[l]
		if !inHelp && !slices.Contains(readme, l) {
			t.Errorf("the step %q is neither a --help example nor a README command any more: change or remove it", l)
		}
	}
	seen := map[string]bool{}
	for _, s := range steps {
		if s.line != "" && seen[s.line] {
			t.Errorf("the step %q is in the table twice: run each line once", s.line)
		}
		seen[s.line] = true
		if s.setup == nil && len(s.out) == 0 && len(s.errOut) == 0 && s.check == nil {
			t.Errorf("the step %q asserts nothing but its exit code: give it out, errOut or check", s.line)
		}
		if s.setup != nil && s.line != "" {
			t.Errorf("the step %q is a setup step with a line: setup steps run no example", s.line)
		}
		if s.run != "" && s.why == "" {
			t.Errorf("the step %q runs %q instead: say why", s.line, s.run)
		}
	}
}

// TestReadmeCommandsAreAllInTheTable: every fedctl command in a fenced
// block of README.md is run (as a --help example or as a step of its own)
// or listed in notRun with the reason, and every notRun entry is still in
// README.md.
func TestReadmeCommandsAreAllInTheTable(t *testing.T) {
	readme := readmeCommands(t)
	require.NotEmpty(t, readme, "README.md has fedctl commands in fenced blocks")
	lines := stepLines()
	for _, l := range readme {
		run := lines[l]
		_, listed := notRun[l]
		assert.True(t, run || listed, "README.md's command %q is neither run nor listed in notRun (cmd/examples/steps_test.go)", l)
		assert.False(t, run && listed, "README.md's command %q is both run and listed in notRun", l)
	}
	for l, why := range notRun {
		assert.Contains(t, readme, l, "notRun lists %q, which README.md no longer has", l)
		assert.NotEmpty(t, why, "notRun gives no reason for %q", l)
	}
}

// TestJQPath: the stand-in for jq, used where jq is not installed, gives
// what jq gives for the example's path.
func TestJQPath(t *testing.T) {
	doc := `{"objects": [{"name": "web", "scheduling": {"plan": [{"cluster": "eu-1", "replicas": 2}, {"cluster": "us-1", "replicas": 1}]}}]}`
	const path = ".objects[0].scheduling.plan"
	got := jqPath(t, doc, path)
	assert.JSONEq(t, `[{"cluster": "eu-1", "replicas": 2}, {"cluster": "us-1", "replicas": 1}]`, got)
	assert.Equal(t, "null\n", jqPath(t, doc, ".objects[1].scheduling"))
	if _, err := exec.LookPath("jq"); err == nil {
		cmd := exec.Command("jq", path)
		cmd.Stdin = strings.NewReader(doc)
		out, err := cmd.Output()
		require.NoError(t, err)
		assert.Equal(t, string(out), got, "the same bytes as jq")
	}
}
