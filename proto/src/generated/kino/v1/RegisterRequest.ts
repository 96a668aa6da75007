// Original file: kino.proto


export interface RegisterRequest {
  'token'?: (string);
  /**
   * empty on first start; a restarted node may re-use its id
   */
  'nodeId'?: (string);
  /**
   * unused since nodes dial out (Connect): the registry records its relay
   */
  'address'?: (string);
  'slots'?: (number);
  'version'?: (string);
  'labels'?: ({[key: string]: string});
  /**
   * What the node can do (issue 54): the encoders of its ffmpeg that passed a one-frame test encode
   * (libx264, libx265, libsvtav1, and hardware ones: h264_nvenc, hevc_vaapi, ...), and whether its
   * quality ffmpeg (SVT-AV1 2+, libvmaf) works. The encode queue gives a node only the jobs it can run.
   * Empty from a node that predates them: it gets only H.264 work that needs no quality ffmpeg.
   */
  'encoders'?: (string)[];
  'qualityFfmpeg'?: (boolean);
  /**
   * The languages its speech engine transcribes (NODE_TRANSCRIBE_MODEL; an English-only Whisper:
   * "en"); empty: it has none, and gets no Transcribe call.
   */
  'transcribeLanguages'?: (string)[];
}

export interface RegisterRequest__Output {
  'token': (string);
  /**
   * empty on first start; a restarted node may re-use its id
   */
  'nodeId': (string);
  /**
   * unused since nodes dial out (Connect): the registry records its relay
   */
  'address': (string);
  'slots': (number);
  'version': (string);
  'labels': ({[key: string]: string});
  /**
   * What the node can do (issue 54): the encoders of its ffmpeg that passed a one-frame test encode
   * (libx264, libx265, libsvtav1, and hardware ones: h264_nvenc, hevc_vaapi, ...), and whether its
   * quality ffmpeg (SVT-AV1 2+, libvmaf) works. The encode queue gives a node only the jobs it can run.
   * Empty from a node that predates them: it gets only H.264 work that needs no quality ffmpeg.
   */
  'encoders': (string)[];
  'qualityFfmpeg': (boolean);
  /**
   * The languages its speech engine transcribes (NODE_TRANSCRIBE_MODEL; an English-only Whisper:
   * "en"); empty: it has none, and gets no Transcribe call.
   */
  'transcribeLanguages': (string)[];
}
