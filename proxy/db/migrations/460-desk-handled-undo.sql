-- "Mark handled" can be undone: each mark keeps the one it replaced (null when there was none), so
-- an undo puts that one back, or removes the mark. One step back only: an undo clears it.
ALTER TABLE desk_handled ADD COLUMN prev jsonb;
