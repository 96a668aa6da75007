// Original file: kino.proto


export interface DeregisterResponse {
}

export interface DeregisterResponse__Output {
}
