// The error envelope of every non-2xx answer, from the API, the dashboard's API and delivery nodes
// alike: `{title, status, detail, code, errors?}` (the spec's envelope plus `code`, the named
// condition). errorEnvelope is its one writer; the SDK reads the same type.

/** One offending field of a request. */
export interface FieldError {
  message: string;
  /** Where the value came from: `body.<field>`, `query.<field>` or `params.<field>`. */
  location: string;
  /** The offending value (null when the field is missing). */
  value: unknown;
}

export interface ErrorEnvelope {
  /** The HTTP status text. */
  title: string;
  status: number;
  detail: string;
  /** The named condition: `invalid_page_size`, `video_not_found`, ... */
  code: string;
  errors?: FieldError[];
}

/**
 * The status texts of the error statuses, as Node's `http.STATUS_CODES` spells them (a test holds
 * them equal). Written out because the contract imports nothing: the SDK and browsers load it too.
 */
export const errorStatusTexts: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  418: "I'm a Teapot",
  421: 'Misdirected Request',
  422: 'Unprocessable Entity',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  506: 'Variant Also Negotiates',
  507: 'Insufficient Storage',
  508: 'Loop Detected',
  509: 'Bandwidth Limit Exceeded',
  510: 'Not Extended',
  511: 'Network Authentication Required',
};

export function errorEnvelope(status: number, code: string, detail: string, errors?: FieldError[]): ErrorEnvelope {
  return {
    title: errorStatusTexts[status] ?? 'Error',
    status,
    detail,
    code,
    ...(errors ? { errors } : {}),
  };
}
