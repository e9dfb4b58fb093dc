package wlfile

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// reserved are words that PostgreSQL, MySQL/MariaDB or SQLite do not take
// as an unquoted table, column or index name. The statements of a file
// are the user's own SQL, and names are not quoted in them, so a file
// that uses one is refused rather than failing at init with a syntax
// error.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		accessible add all alter analyse analyze and any array as asc asymmetric authorization
		before between bigint binary blob both by call cascade case cast change char character
		check collate collation column concurrently condition constraint continue convert create
		cross cube cume_dist current_catalog current_date current_role current_schema current_time
		current_timestamp current_user cursor database databases dec decimal declare default
		deferrable delayed delete dense_rank desc describe distinct distinctrow div do double drop
		dual each else elseif empty end except exists exit explain false fetch first_value float
		for force foreign freeze from full fulltext function generated grant group grouping groups
		having if ignore ilike in index infile initially inner inout insert int integer intersect
		interval into is isnull iterate join json_table key keys kill lag last_value lateral lead
		leading leave left like limit linear lines load localtime localtimestamp lock long loop
		match maxvalue mediumint mod natural not notnull nth_value ntile null numeric of offset on
		only optimize option or order out outer outfile over overlaps partition percent_rank
		placing precision primary procedure purge range rank read reads real recursive references
		regexp release rename repeat replace require restrict return returning revoke right rlike
		row row_number rows schema select session_user set show signal similar smallint some
		spatial sql symmetric system table tablesample then tinyint to trailing trigger true union
		unique unlock unsigned update usage use user using values varbinary varchar variadic
		verbose when where while window with write xor zerofill`) {
		reserved[w] = true
	}
}

// sqlName refuses a table, column or index name that is not a plain
// identifier or is a reserved word; prefix places the name ("table t: ").
func (p *parser) sqlName(n *yaml.Node, prefix, kind, name string) error {
	if !identRE.MatchString(name) {
		return p.errf(n, "%s%s name %q must be a plain identifier (letters, digits, _)", prefix, kind, name)
	}
	if reserved[strings.ToLower(name)] {
		return p.errf(n, "%s%s name %q is a reserved word in SQL; expected another name, such as %s_%s", prefix, kind, name, name, kind)
	}
	return nil
}
