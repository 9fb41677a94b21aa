-- The schema of Tessera v1.0.4's MySQL driver (storage/mysql/schema.sql,
-- copied verbatim below, Apache License 2.0), then mcpres's own tables.

-- Copyright 2024 Google LLC
--
-- Licensed under the Apache License, Version 2.0 (the "License");
-- you may not use this file except in compliance with the License.
-- You may obtain a copy of the License at
--
--     http://www.apache.org/licenses/LICENSE-2.0
--
-- Unless required by applicable law or agreed to in writing, software
-- distributed under the License is distributed on an "AS IS" BASIS,
-- WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
-- See the License for the specific language governing permissions and
-- limitations under the License.

-- MySQL version of the Tessera database schema.

-- "Tessera" table stores a single row that is the version of this schema
-- and the data formats within it. This is read at startup to prevent Tessera
-- running against a database with an incompatible format.
CREATE TABLE IF NOT EXISTS Tessera (
  -- id is expected to be always 0 to maintain a maximum of a single row.
  `id`                   TINYINT UNSIGNED NOT NULL,
  -- compatibilityVersion is the version of this schema and the data within it.
  `compatibilityVersion` BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY (`id`)
);

INSERT IGNORE INTO Tessera (`id`, `compatibilityVersion`) VALUES (0, 1);

-- "Checkpoint" table stores a single row that records the latest _published_ checkpoint for the log.
-- This is stored separately from the TreeState in order to enable publishing of commitments to updated tree states to happen
-- on an indepentent timeframe to the internal updating of state.
CREATE TABLE IF NOT EXISTS `Checkpoint` (
  -- id is expected to be always 0 to maintain a maximum of a single row.
  `id`    TINYINT UNSIGNED NOT NULL,
  -- note is the text signed by one or more keys in the checkpoint format. See https://c2sp.org/tlog-checkpoint and https://c2sp.org/signed-note.
  `note`  MEDIUMBLOB NOT NULL,
  -- published_at is the millisecond UNIX timestamp of when this row was written.
  `published_at` BIGINT NOT NULL,
  PRIMARY KEY(`id`)
);

-- "TreeState" table stores the current state of the integrated tree.
-- This is not the same thing as a Checkpoint, which is a signed commitment to such a state.
CREATE TABLE IF NOT EXISTS `TreeState` (
  -- id is expected to be always 0 to maintain a maximum of a single row.
  `id`    TINYINT UNSIGNED NOT NULL,
  -- size is the extent of the currently integrated tree.
  `size`  BIGINT UNSIGNED NOT NULL,
  -- root is the root hash of the tree at the size stored in `size`.
  `root`  TINYBLOB NOT NULL,
  PRIMARY KEY(`id`)
);

-- "Subtree" table is an internal tile consisting of hashes. There is one row for each internal tile, and this is updated until it is completed, at which point it is immutable.
CREATE TABLE IF NOT EXISTS `Subtree` (
  -- level is the level of the tile.
  `level` TINYINT UNSIGNED NOT NULL,
  -- index is the index of the tile.
  `index` BIGINT UNSIGNED NOT NULL,
  -- nodes stores the hashes of the leaves.
  `nodes` MEDIUMBLOB NOT NULL,
  PRIMARY KEY(`level`, `index`)
);

-- "TiledLeaves" table stores the data committed to by the leaves of the tree. Follows the same evolution as Subtree.
CREATE TABLE IF NOT EXISTS `TiledLeaves` (
  `tile_index` BIGINT UNSIGNED NOT NULL,
  -- size is the number of entries serialized into this leaf bundle.
  `size`       SMALLINT UNSIGNED NOT NULL,
  `data`       LONGBLOB NOT NULL,
  PRIMARY KEY(`tile_index`)
);

-- mcpres: the deduplication index (tlog.DedupIndex): the first index of
-- each entry identity (SHA-256 of the entry), filled in log order.
CREATE TABLE IF NOT EXISTS `mcpresDedup` (
  `h`   BINARY(32) NOT NULL,
  `idx` BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY(`h`)
);

-- mcpres: how many leading entries of the log mcpresDedup covers.
CREATE TABLE IF NOT EXISTS `mcpresDedupState` (
  `id`   TINYINT UNSIGNED NOT NULL,
  `next` BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY(`id`)
);

INSERT IGNORE INTO `mcpresDedupState` (`id`, `next`) VALUES (0, 0);

-- mcpres: the log's verifier key, recorded by 'log init' (operator state,
-- as DIR/.mcpres/log.vkey is for a POSIX log).
CREATE TABLE IF NOT EXISTS `mcpresLog` (
  `id`   TINYINT UNSIGNED NOT NULL,
  `vkey` VARCHAR(1024) NOT NULL,
  PRIMARY KEY(`id`)
);

-- mcpres: the published checkpoint with the witness cosignatures attached
-- to it (ReplaceCheckpoint). Tessera v1.0.4's MySQL driver signs the
-- unchanged tree again every checkpoint interval (it has no "no
-- republication" setting), which would drop cosignatures kept in
-- `Checkpoint`; ReadCheckpoint serves this note while `Checkpoint` holds
-- the same tree.
CREATE TABLE IF NOT EXISTS `mcpresCosigned` (
  `id`   TINYINT UNSIGNED NOT NULL,
  `note` MEDIUMBLOB NOT NULL,
  PRIMARY KEY(`id`)
);

-- mcpres: the entries being appended, each claimed by the process
-- appending it (tlog.SharedDedupIndex), so that the same entry sent to two
-- frontends at once is appended once. owner names the process: it holds
-- the named lock 'mcpres-frontend-OWNER' (GET_LOCK) while it runs, so a
-- claim whose owner is gone is taken over at once. A row lives until
-- mcpresDedup records its entry (Put deletes it) or its append fails.
CREATE TABLE IF NOT EXISTS `mcpresClaim` (
  `h`     BINARY(32) NOT NULL,
  `owner` CHAR(32) CHARACTER SET ascii NOT NULL,
  `at`    TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY(`h`)
);

-- mcpres: the largest checkpoint size a witnessing round ran for, in any
-- of the processes serving the log (tlog.WitnessRounds): the witnesses are
-- asked once per checkpoint, not once per frontend.
CREATE TABLE IF NOT EXISTS `mcpresWitnessed` (
  `id`   TINYINT UNSIGNED NOT NULL,
  `size` BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY(`id`)
);
