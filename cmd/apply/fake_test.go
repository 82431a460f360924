package apply

import "github.com/fedctl/fedctl/pkg/members/memberstest"

// okClient is a member that serves every type and accepts every write.
func okClient() *memberstest.Fake {
	f := memberstest.New()
	f.ServeAll = true
	return f
}
