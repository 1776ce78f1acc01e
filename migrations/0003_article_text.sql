-- Search excerpts are plain text: an article's body is Markdown, and its syntax (`## Heading`,
-- `**bold**`, `[text](url)`) is noise in a snippet that clients show as text. The plain rendering
-- is computed once per write and kept beside the article, so a search pays nothing for it.
--
-- A reading, not a Markdown parser: it keeps the words a reader sees (link and image text,
-- code, list items) and drops the marks around them. 'n' makes ^ and $ match at each line.
CREATE FUNCTION markdown_to_text(markdown text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  -- an escaped * or _ is text: set aside from the emphasis rules below, put back at the end
  t text := replace(replace(replace(markdown, E'\r', ''), '\*', U&'\E000'), '\_', U&'\E001');
BEGIN
  -- code fences: the fence lines go, the code stays
  t := regexp_replace(t, '^[ \t]*(`{3,}|~{3,}).*$', '', 'gn');
  -- images and links keep their text; reference definitions go; autolinks keep the address
  t := regexp_replace(t, '!?\[([^]]*)\]\([^)]*\)', '\1', 'gn');
  t := regexp_replace(t, '\[([^]]+)\]\[[^]]*\]', '\1', 'gn');
  t := regexp_replace(t, '^[ \t]{0,3}\[[^]]+\]:[ \t]*[^ \t].*$', '', 'gn');
  t := regexp_replace(t, '<((https?|ftp|mailto):[^> \t]+)>', '\1', 'gi');
  -- HTML: comments and tags go; a line break is a space
  t := regexp_replace(t, '<!--.*?-->', '', 'g');
  t := regexp_replace(t, '<br[ \t]*/?>', ' ', 'gi');
  t := regexp_replace(t, '</?[A-Za-z][A-Za-z0-9-]*([ \t\n][^>]*)?/?>', '', 'g');
  -- rules and setext underlines
  t := regexp_replace(t, '^[ \t]*([-*_][ \t]*){3,}$|^[ \t]*=+[ \t]*$', '', 'gn');
  -- headings: the marks go; one that does not end in punctuation gets a full stop, so it does
  -- not run into the paragraph after it once the lines are joined
  t := regexp_replace(t, '^[ \t]{0,3}#{1,6}[ \t]+(.*[^.!?:;,[:space:]#])([ \t]+#+)?[ \t]*$', '\1.', 'gn');
  t := regexp_replace(t, '^[ \t]{0,3}#{1,6}([ \t]+|$)', '', 'gn');
  -- block quotes, then list markers (and a task's box)
  t := regexp_replace(t, '^[ \t]*(>[ \t]?)+', '', 'gn');
  t := regexp_replace(t, '^[ \t]*([-*+]|[0-9]{1,9}[.)])[ \t]+(\[[ xX]\][ \t]+)?', '', 'gn');
  -- tables: the row under the header, and the outer pipes
  t := regexp_replace(t, '^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$', '', 'gn');
  t := regexp_replace(t, '^[ \t]*\||\|[ \t]*$', '', 'gn');
  -- inline code keeps its content
  t := replace(t, '`', '');
  -- emphasis: a run of * touching a word on one side (2 * 3 keeps its star); _ only at a
  -- word's edge (snake_case keeps its underscores); strike-through
  t := regexp_replace(t, '\*+(?=[^[:space:]*])|(?<=[^[:space:]*])\*+', '', 'g');
  t := regexp_replace(t, '(?<![[:alnum:]_])_+(?=[^[:space:]_])|(?<=[^[:space:]_])_+(?![[:alnum:]_])', '', 'g');
  t := regexp_replace(t, '~~+', '', 'g');
  -- backslash escapes: the character stays
  t := regexp_replace(t, '\\([][\\`{}()#+.!|>~<-])', '\1', 'g');
  t := replace(replace(t, U&'\E000', '*'), U&'\E001', '_');
  RETURN btrim(regexp_replace(t, '[[:space:]]+', ' ', 'g'));
END
$$;

-- In a table of its own, not a column of articles: wider article rows cost the search itself,
-- which reads every matching row to rank it (measured on PostgreSQL 15: a query matching 1,571
-- of 10,000 articles read 3,628 buffers with a column, 1,514 without it), while the plain text is
-- read for the page of results alone (10 index lookups, 30 buffers).
CREATE TABLE article_texts (
  article_id uuid PRIMARY KEY REFERENCES articles(id) ON DELETE CASCADE,
  body_text text NOT NULL
);

INSERT INTO article_texts (article_id, body_text) SELECT id, markdown_to_text(body) FROM articles;

-- per statement, so a bulk import converts its rows in one INSERT … SELECT
CREATE FUNCTION article_texts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO article_texts (article_id, body_text) SELECT id, markdown_to_text(body) FROM inserted;
  RETURN NULL;
END
$$;

CREATE TRIGGER article_texts_insert AFTER INSERT ON articles
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION article_texts_insert();

CREATE FUNCTION article_texts_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE article_texts SET body_text = markdown_to_text(NEW.body) WHERE article_id = NEW.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER article_texts_update AFTER UPDATE OF body ON articles
  FOR EACH ROW WHEN (OLD.body IS DISTINCT FROM NEW.body) EXECUTE FUNCTION article_texts_update();
