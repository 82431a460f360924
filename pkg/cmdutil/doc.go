// Package cmdutil is the glue every command shares: the Factory that hands
// out streams, settings and the federation file lazily, the errors that
// decide exit codes, and flag and completion helpers that keep spellings the
// same across commands.
package cmdutil
