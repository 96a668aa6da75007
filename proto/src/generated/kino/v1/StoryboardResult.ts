// Original file: kino.proto


export interface StoryboardResult {
  'sheets'?: (number);
  'tiles'?: (number);
  'tileWidth'?: (number);
  'tileHeight'?: (number);
}

export interface StoryboardResult__Output {
  'sheets': (number);
  'tiles': (number);
  'tileWidth': (number);
  'tileHeight': (number);
}
