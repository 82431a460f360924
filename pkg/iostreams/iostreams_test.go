package iostreams

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestColor(t *testing.T) {
	tests := []struct {
		mode    string
		tty     bool
		noColor string
		want    bool
	}{
		{mode: "auto", tty: false, want: false},
		{mode: "auto", tty: true, want: true},
		{mode: "always", tty: false, want: true},
		{mode: "never", tty: true, want: false},
		{mode: "auto", tty: true, noColor: "1", want: false},
		{mode: "always", tty: true, noColor: "1", want: false},
		{mode: "always", tty: true, noColor: "", want: true}, // NO_COLOR="" is unset per no-color.org
	}
	for _, tt := range tests {
		t.Setenv("NO_COLOR", tt.noColor)
		ios, _, _, _ := Test()
		ios.SetTTY(tt.tty)
		require.NoError(t, ios.SetColorMode(tt.mode))
		cs := ios.ColorScheme()
		assert.Equal(t, tt.want, cs.Enabled(), "mode %s tty %v NO_COLOR=%q", tt.mode, tt.tty, tt.noColor)
		if tt.want {
			assert.Equal(t, "\x1b[32mok\x1b[0m", cs.Green("ok"))
		} else {
			assert.Equal(t, "ok", cs.Green("ok"))
		}
	}
	ios, _, _, _ := Test()
	assert.EqualError(t, ios.SetColorMode("pink"), `--color must be auto, always or never, got "pink"`)
}

func TestSchemesAreIndependent(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	on, _, _, _ := Test()
	require.NoError(t, on.SetColorMode("always"))
	off, _, _, _ := Test()
	require.NoError(t, off.SetColorMode("never"))
	a, b := on.ColorScheme(), off.ColorScheme()
	assert.NotEqual(t, "x", a.Red("x"))
	assert.Equal(t, "x", b.Red("x"), "one scheme's setting does not leak into another")
}
