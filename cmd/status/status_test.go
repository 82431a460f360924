package status

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func TestNewCmdStatus(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    StatusOptions
		wantErr string
	}{
		{
			name: "-f reads manifests",
			args: []string{"-f", "dir", "-R", "--cluster", "eu-1"},
			want: StatusOptions{Filenames: []string{"dir"}, Recursive: true, Clusters: []string{"eu-1"}, Namespace: "default", Interval: time.Second, Concurrency: 8},
		},
		{
			name: "TYPE NAME needs no manifest",
			args: []string{"fdeploy", "web", "-n", "shop", "--wait", "--timeout", "2m", "-o", "wide"},
			want: StatusOptions{TypeName: "fdeploy", Name: "web", Namespace: "shop", Wait: true, Timeout: 2 * time.Minute, Interval: time.Second, Concurrency: 8},
		},
		{name: "nothing to read is a usage error", args: nil, wantErr: "give -f FILENAME (a file, a directory, an http(s) URL or -), -k DIR or TYPE NAME"},
		{name: "both forms at once", args: []string{"-f", "x", "fdeploy", "web"}, wantErr: "give either -f FILENAME (or -k DIR) or TYPE NAME, not both"},
		{
			name: "a kustomization and a selector",
			args: []string{"-k", "overlay", "-l", "tier=web"},
			want: StatusOptions{Kustomize: "overlay", Selector: "tier=web", Namespace: "default", Interval: time.Second, Concurrency: 8},
		},
		{name: "-k and TYPE NAME", args: []string{"-k", "x", "fdeploy", "web"}, wantErr: "give either -f FILENAME (or -k DIR) or TYPE NAME, not both"},
		{name: "-f and -k", args: []string{"-f", "x", "-k", "y"}, wantErr: "-f and -k cannot be used together"},
		{name: "-l with TYPE NAME", args: []string{"-l", "a=b", "fdeploy", "web"}, wantErr: "-l selects federated objects of -f or -k; TYPE NAME names one member object already"},
		{name: "TYPE without NAME", args: []string{"fdeploy"}, wantErr: "takes TYPE NAME or -f FILENAME, got 1 argument(s)"},
		{name: "an unknown output format", args: []string{"-f", "x", "-o", "table"}, wantErr: "--output must be one of wide, yaml, json, name, custom-columns=SPEC, custom-columns-file=FILE, or go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file=TEMPLATE; got \"table\""},
		{name: "a template that does not parse", args: []string{"-f", "x", "-o", "jsonpath={.items[}"}, wantErr: "-o jsonpath: error parsing jsonpath {.items[}"},
		{name: "custom columns without a path", args: []string{"-f", "x", "-o", "custom-columns=NAME"}, wantErr: `custom-columns: "NAME" is not HEADER:PATH`},
		{name: "--sort-by that is not a path", args: []string{"-f", "x", "--sort-by", "{.a}{.b}"}, wantErr: `--sort-by: "{.a}{.b}" is not a JSONPath expression`},
		{name: "--show-labels with yaml", args: []string{"-f", "x", "-o", "yaml", "--show-labels"}, wantErr: "--show-labels applies to tables (the default output and -o wide), not to -o yaml"},
		{name: "--no-headers with a template", args: []string{"-f", "x", "-o", "jsonpath={.kind}", "--no-headers"}, wantErr: "--no-headers applies to tables and custom-columns, not to -o jsonpath"},
		{name: "a negative timeout", args: []string{"-f", "x", "--timeout", "-1s"}, wantErr: "--timeout must be positive, got -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *StatusOptions
			cmd := NewCmdStatus(&cmdutil.Factory{IOStreams: ios}, func(o *StatusOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				var fe *cmdutil.FlagError
				assert.ErrorAs(t, err, &fe, "a usage error exits 2")
				return
			}
			require.NoError(t, err)
			if tt.name == "TYPE NAME needs no manifest" {
				assert.Equal(t, "wide", got.Print.Output)
			}
			got.IO, got.Federation, got.Access, got.NewClient, got.Print = nil, nil, nil, nil, nil
			assert.Equal(t, tt.want, *got)
		})
	}
}

func TestFederatedType(t *testing.T) {
	t.Parallel()
	widgets := typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
	reg, err := typeconfig.NewRegistry([]typeconfig.Type{widgets}, nil)
	require.NoError(t, err)
	deploy, _ := reg.Get("deployments.apps")
	cm, _ := reg.Get("configmaps")
	tests := []struct {
		name    string
		want    typeconfig.Type
		wantErr string
	}{
		{name: "federateddeployments", want: deploy},
		{name: "federateddeployment", want: deploy},
		{name: "FederatedDeployment", want: deploy},
		{name: "federateddeployments.types.kubefed.io", want: deploy},
		{name: "fdeploy", want: deploy},
		{name: "deployments", want: deploy},
		{name: "fcm", want: cm},
		{name: "federatedwidgets", want: widgets},
		{name: "FederatedWidget", want: widgets},
		{name: "fwidgets", wantErr: `no federated type named "fwidgets"`},
		{name: "federatedgadgets", wantErr: `no federated type named "federatedgadgets"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := federatedType(reg, tt.name)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
