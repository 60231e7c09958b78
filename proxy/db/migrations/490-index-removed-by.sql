-- Why a number is marked removed from the account (removed_at): 'listing', the account's listing
-- lacked it (the mark goes only when a listing names it again), or 'refusal', the upstream refused
-- its history as gone (the mark goes with the next sync that works). Before this column the two
-- were told apart by `listed`, which a number never listed (synced by name) has false either way:
-- its refusal's mark then outlived a sync that worked whenever the listing could not be read.
-- Marks made before this migration are taken as refusals' (a sync that works clears them, as it did).
ALTER TABLE index_numbers ADD COLUMN removed_by text;
UPDATE index_numbers SET removed_by = 'listing' WHERE removed_at IS NOT NULL AND NOT listed;
