package diff

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/propagate"
)

// WriteDiffTrees writes, for every comparison in report, the live object
// under liveDir and the merged one under mergedDir, as YAML files named by
// Comparison.FileName, the way kubectl diff lays out its LIVE and MERGED
// directories (see Comparison.Sides: server-kept fields stripped, Secret
// values masked, no file where an object does not exist). It returns how
// many objects differ.
func WriteDiffTrees(report *propagate.Report, liveDir, mergedDir string) (int, error) {
	differ := 0
	for _, cr := range report.Clusters {
		for _, c := range cr.Comparisons {
			live, merged, differs := c.Sides()
			if differs {
				differ++
			}
			name := c.FileName(cr.Cluster)
			for _, f := range []struct {
				dir string
				obj *unstructured.Unstructured
			}{{liveDir, live}, {mergedDir, merged}} {
				if f.obj == nil {
					continue
				}
				data, err := yaml.Marshal(f.obj.Object)
				if err != nil {
					return differ, fmt.Errorf("cluster %s: %s: %w", cr.Cluster, c.Object.Ref(), err)
				}
				if err := os.WriteFile(filepath.Join(f.dir, name), data, 0o600); err != nil {
					return differ, err
				}
			}
		}
	}
	return differ, nil
}
